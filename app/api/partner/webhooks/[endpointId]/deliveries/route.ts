import { outsideScope } from "@/lib/api/route";
import { handleListDeliveries } from "@/lib/partners/webhook-api";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ endpointId: string }> }) {
  return handleListDeliveries(request, (await context.params).endpointId);
}
export { outsideScope as POST, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
