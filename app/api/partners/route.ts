import { outsideScope } from "@/lib/api/route";
import { handlePartnerSignUp } from "@/lib/partners/signup";

export const dynamic = "force-dynamic";

/** Self-service sign-up: the signed-in person becomes the owner of a new partner. */
export function POST(request: Request) {
  return handlePartnerSignUp(request);
}
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
