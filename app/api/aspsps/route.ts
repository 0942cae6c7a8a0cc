import { handleListBanks } from "@/lib/api/banks";
import { outsideScope, personalOperation } from "@/lib/api/route";

export const dynamic = "force-dynamic";

// The banks that can be connected: a person's own key only; a partner's gets 403 (docs/own-data.md).
export const GET = personalOperation((_principal, request) => handleListBanks(request));
export { outsideScope as POST, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
