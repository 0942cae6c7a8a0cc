import { outsideScope } from "@/lib/api/route";
import { handleRotateClientSecret } from "@/lib/partners/client-api";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ clientId: string }> }) {
  return handleRotateClientSecret(request, (await context.params).clientId);
}
export { outsideScope as GET, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
