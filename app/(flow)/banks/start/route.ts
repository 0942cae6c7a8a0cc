import { handleBankStart } from "@/lib/flow/banks";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleBankStart(request);
}
