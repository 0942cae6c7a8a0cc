import { handleBankContinue } from "@/lib/flow/banks";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleBankContinue(request);
}
