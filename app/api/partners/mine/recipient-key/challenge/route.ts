import { outsideScope } from "@/lib/api/route";
import { handleRecipientKeyChallenge } from "@/lib/partners/recipient-key";

export const dynamic = "force-dynamic";

/** Seals the possession challenge to the public key being installed (/docs/recipient-keys). */
export function POST(request: Request) {
  return handleRecipientKeyChallenge(request);
}
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
