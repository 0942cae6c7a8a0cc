import { outsideScope } from "@/lib/api/route";
import { handleLogoUpload } from "@/lib/partners/partner-api";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleLogoUpload(request);
}
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
