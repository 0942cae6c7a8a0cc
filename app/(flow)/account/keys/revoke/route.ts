import { handleRevokePersonalKey } from "@/lib/account/personal-keys";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleRevokePersonalKey);
