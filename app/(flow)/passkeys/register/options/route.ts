import { browserRoute } from "@/lib/http/outage";
import { handleRegisterOptions } from "@/lib/passkeys/handlers";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleRegisterOptions);
