import { outsideScope } from "@/lib/api/route";
import { handleReplayDelivery } from "@/lib/partners/webhook-api";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ endpointId: string; deliveryId: string }> };

export async function POST(request: Request, context: Context) {
  const { endpointId, deliveryId } = await context.params;
  return handleReplayDelivery(request, endpointId, deliveryId);
}
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
