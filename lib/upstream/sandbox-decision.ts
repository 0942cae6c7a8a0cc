import { isSameOrigin } from "../http/origin";
import { approveSandboxAuthorization, denySandboxAuthorization } from "./sandbox/consent";
import { bodyTooLargeFor, readFormBody } from "../http/body-limits";

/** POST /sandbox/authorize/decision: the sandbox bank's Approve/Deny, back to the requester. */
export async function handleSandboxDecision(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return new Response(null, { status: 403 });
  const read = await readFormBody(request);
  if (!read.ok) return bodyTooLargeFor(request, read.problem === "too_large" ? read.limit : 0);
  const form = read.value;
  const authorization = form.get("authorization") ?? "";
  const decision = form.get("decision");
  const location =
    decision === "approve"
      ? approveSandboxAuthorization(authorization)
      : decision === "deny"
        ? denySandboxAuthorization(authorization)
        : null;
  // Not echoed when oversized: the Location header must stay far below header limits.
  const shown = authorization.length <= 256 ? authorization : "";
  const back = `/sandbox/authorize?authorization=${encodeURIComponent(shown)}`;
  return new Response(null, { status: 303, headers: { Location: location ?? back } });
}
