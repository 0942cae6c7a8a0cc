import { outsideScope } from "@/lib/api/route";
import { handlePutBranding } from "@/lib/partners/partner-api";

export const dynamic = "force-dynamic";

export function PUT(request: Request) {
  return handlePutBranding(request);
}
export { outsideScope as GET, outsideScope as POST, outsideScope as PATCH, outsideScope as DELETE };
