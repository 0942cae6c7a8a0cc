import { handleConsentApprove } from "@/lib/flow/consent";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleConsentApprove);
