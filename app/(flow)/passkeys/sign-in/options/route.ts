import { browserRoute } from "@/lib/http/outage";
import { handleSignInOptions } from "@/lib/passkeys/handlers";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleSignInOptions);
