import { outsideScope } from "@/lib/api/route";
import { handleSendTestEvent } from "@/lib/partners/webhook-api";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ endpointId: string }> }) {
  return handleSendTestEvent(request, (await context.params).endpointId);
}
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
