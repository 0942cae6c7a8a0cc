import { browserRoute } from "@/lib/http/outage";
import { handleSetPasskeyKey } from "@/lib/passkeys/handlers";

export const dynamic = "force-dynamic";

export const PUT = browserRoute(handleSetPasskeyKey);
