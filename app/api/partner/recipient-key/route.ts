import { outsideScope } from "@/lib/api/route";
import { handleInstallRecipientKey } from "@/lib/partners/recipient-key";

export const dynamic = "force-dynamic";

/** The 1.2 spelling of PUT /api/partners/mine/recipient-key (/docs/recipient-keys). */
export function PUT(request: Request) {
  return handleInstallRecipientKey(request);
}
export { outsideScope as GET, outsideScope as POST, outsideScope as PATCH, outsideScope as DELETE };
