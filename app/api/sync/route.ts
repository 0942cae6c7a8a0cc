import { dataOperation, outsideScope } from "@/lib/api/route";
import { handleBulkSync } from "@/lib/api/sync";

export const dynamic = "force-dynamic";

export const POST = dataOperation((principal, request) => handleBulkSync(principal, request));
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
