import { browserRoute } from "@/lib/http/outage";
import { handleCliKey } from "@/lib/oauth/cli-sign-in";

export const dynamic = "force-dynamic";

// Key setup on the command-line sign-in's page, for a person who has no key yet (docs/own-data.md).
export const POST = browserRoute(handleCliKey);
