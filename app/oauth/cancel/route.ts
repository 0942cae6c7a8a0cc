import { handleCancelRequest } from "@/lib/flow/cancel";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleCancelRequest);
