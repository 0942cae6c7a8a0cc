import { dataOperation, outsideScope } from "@/lib/api/route";
import { handleAccountSync } from "@/lib/api/sync";

export const dynamic = "force-dynamic";

export const POST = dataOperation((principal, request, params) =>
  handleAccountSync(principal, request, params.id ?? ""),
);
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
