import { handleLoginCode } from "@/lib/flow/login";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleLoginCode);
