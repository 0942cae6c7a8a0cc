import { browserRoute } from "@/lib/http/outage";
import { handleRemovePasskey } from "@/lib/passkeys/handlers";

export const dynamic = "force-dynamic";

export const DELETE = browserRoute(handleRemovePasskey);
