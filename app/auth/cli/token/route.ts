import { answeringOutages, temporarilyUnavailable } from "@/lib/http/outage";
import { handleCliToken } from "@/lib/oauth/cli-sign-in";

export const dynamic = "force-dynamic";

// The command-line client redeems its one-time code for a personal key (docs/own-data.md).
export const POST = answeringOutages(handleCliToken, temporarilyUnavailable);
