import { handleBankRenew } from "@/lib/flow/banks";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handleBankRenew(request);
}
