import { handleSandboxDecision } from "@/lib/upstream/sandbox-decision";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleSandboxDecision);
