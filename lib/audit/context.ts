import { clientIpOf } from "../http/client-ip";
import type { AuditActor, AuditContext } from "./events";

/** Who acted, and the client address the service's own server stamped on the request. */
export function requestAudit(request: Request, actor: AuditActor): AuditContext {
  return { actor, clientIp: clientIpOf(request) };
}

/** A partner owner acting through the dashboard with their browser session. */
export function ownerAudit(request: Request, owner: { user: { userId: string } }): AuditContext {
  return requestAudit(request, { kind: "user", id: owner.user.userId });
}
