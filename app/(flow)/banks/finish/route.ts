import { handleBankFinish } from "@/lib/flow/banks";
import { browserRoute } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const GET = browserRoute(handleBankFinish);
