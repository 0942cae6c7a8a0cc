import { listTransactions } from "@/lib/api/transactions";
import { dataOperation, outsideScope } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = dataOperation((principal, request, params) =>
  listTransactions(principal, params.id ?? "", new URL(request.url).searchParams),
);
export { outsideScope as POST, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
