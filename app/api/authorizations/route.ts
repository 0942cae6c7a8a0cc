import { handleStartAuthorization } from "@/lib/api/banks";
import { outsideScope, personalOperation } from "@/lib/api/route";

export const dynamic = "force-dynamic";

// Starts connecting a bank: a person's own key only; a partner's gets 403 (docs/own-data.md).
export const POST = personalOperation(handleStartAuthorization);
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
