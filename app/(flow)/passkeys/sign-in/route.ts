import { browserRoute } from "@/lib/http/outage";
import { handleSignIn } from "@/lib/passkeys/handlers";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleSignIn);
