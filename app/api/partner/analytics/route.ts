import { outsideScope } from "@/lib/api/route";
import { handlePartnerAnalytics } from "@/lib/partners/analytics-api";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handlePartnerAnalytics(request);
}
export { outsideScope as POST, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
