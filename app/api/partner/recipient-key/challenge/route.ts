import { outsideScope } from "@/lib/api/route";
import { handleRecipientKeyChallenge } from "@/lib/partners/recipient-key";

export const dynamic = "force-dynamic";

/** CONTRACT §9, the 1.2 spelling of POST /api/partners/mine/recipient-key/challenge. */
export function POST(request: Request) {
  return handleRecipientKeyChallenge(request);
}
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
