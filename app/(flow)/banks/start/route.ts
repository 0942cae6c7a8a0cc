import { handleBankStart } from "@/lib/flow/banks";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const POST = browserRoute(handleBankStart);
