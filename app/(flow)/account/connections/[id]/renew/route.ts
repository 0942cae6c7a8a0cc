import { handleRenewConsent } from "@/lib/account/renew-consent";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const GET = browserRoute(handleRenewConsent);
