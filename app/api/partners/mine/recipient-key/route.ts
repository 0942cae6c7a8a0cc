import { outsideScope } from "@/lib/api/route";
import { handleInstallRecipientKey } from "@/lib/partners/recipient-key";

export const dynamic = "force-dynamic";

/** CONTRACT §9: installs the partner's recipient key after the possession challenge. */
export function PUT(request: Request) {
  return handleInstallRecipientKey(request);
}
export { outsideScope as GET, outsideScope as POST, outsideScope as PATCH, outsideScope as DELETE };
