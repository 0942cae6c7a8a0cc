import { outsideScope } from "@/lib/api/route";
import { handleDeleteEndpoint, handleUpdateEndpoint } from "@/lib/partners/webhook-api";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ endpointId: string }> };

export async function PATCH(request: Request, context: Context) {
  return handleUpdateEndpoint(request, (await context.params).endpointId);
}
export async function DELETE(request: Request, context: Context) {
  return handleDeleteEndpoint(request, (await context.params).endpointId);
}
export { outsideScope as GET, outsideScope as POST, outsideScope as PUT };
