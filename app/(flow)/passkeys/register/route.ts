import { browserRoute } from "@/lib/http/outage";
import { handleRegister } from "@/lib/passkeys/handlers";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleRegister);
