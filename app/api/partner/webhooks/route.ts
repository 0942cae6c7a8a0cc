import { outsideScope } from "@/lib/api/route";
import { handleCreateEndpoint, handleListEndpoints } from "@/lib/partners/webhook-api";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handleListEndpoints(request);
}
export function POST(request: Request) {
  return handleCreateEndpoint(request);
}
export { outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
