import { handleBankCallback } from "@/lib/flow/banks";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handleBankCallback(request);
}
