import { handleStartOver } from "@/lib/flow/start-over";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleStartOver);
