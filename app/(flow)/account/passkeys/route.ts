import { answeringOutages, temporarilyUnavailable } from "@/lib/http/outage";
import { handleListPasskeys } from "@/lib/passkeys/handlers";

export const dynamic = "force-dynamic";

// Read by the page's script: a JSON 503 while the database is down, never the error page.
export const GET = answeringOutages(handleListPasskeys, temporarilyUnavailable);
