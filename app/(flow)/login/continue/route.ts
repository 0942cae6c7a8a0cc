import { handleFlowContinue } from "@/lib/flow/continue";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const GET = browserRoute(handleFlowContinue);
