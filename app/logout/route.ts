import { handleSignOut, refuseSignOutByGet } from "@/lib/flow/sign-out";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleSignOut);

export function GET() {
  return refuseSignOutByGet();
}
