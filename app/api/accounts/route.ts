import { listAccounts } from "@/lib/api/accounts";
import { dataOperation, outsideScope } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = dataOperation((principal, request) =>
  listAccounts(principal, new URL(request.url).searchParams),
);
export { outsideScope as POST, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
