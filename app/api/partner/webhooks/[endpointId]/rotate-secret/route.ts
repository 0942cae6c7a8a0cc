import { outsideScope } from "@/lib/api/route";
import { handleRotateEndpointSecret } from "@/lib/partners/webhook-api";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ endpointId: string }> }) {
  return handleRotateEndpointSecret(request, (await context.params).endpointId);
}
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
