import { handleKeyRegistration } from "@/lib/flow/key-setup";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleKeyRegistration);
