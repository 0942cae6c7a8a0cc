import { handleBankProgressStatus, progressStatusUnavailable } from "@/lib/flow/banks";
import { answeringOutages } from "@/lib/http/outage";

export const dynamic = "force-dynamic";

export const GET = answeringOutages(handleBankProgressStatus, progressStatusUnavailable);
