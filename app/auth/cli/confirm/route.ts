import { browserRoute } from "@/lib/http/outage";
import { handleCliConfirm } from "@/lib/oauth/cli-sign-in";

export const dynamic = "force-dynamic";

// The command-line sign-in's confirmation: on to the program's loopback listener (docs/own-data.md).
export const POST = browserRoute(handleCliConfirm);
