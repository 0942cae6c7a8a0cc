import { outsideScope } from "@/lib/api/route";
import { handlePartnerAuditEvents } from "@/lib/partners/audit-log-api";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handlePartnerAuditEvents(request);
}
export { outsideScope as POST, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
