import { outsideScope } from "@/lib/api/route";
import { handleDeleteClient, handleUpdateClient } from "@/lib/partners/client-api";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ clientId: string }> };

export async function PATCH(request: Request, context: Context) {
  return handleUpdateClient(request, (await context.params).clientId);
}
export async function DELETE(request: Request, context: Context) {
  return handleDeleteClient(request, (await context.params).clientId);
}
export { outsideScope as GET, outsideScope as POST, outsideScope as PUT };
