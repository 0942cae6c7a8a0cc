import { outsideScope } from "@/lib/api/route";
import { handlePartnerMe } from "@/lib/partners/partner-api";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handlePartnerMe(request);
}
export { outsideScope as POST, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
