import { outsideScope } from "@/lib/api/route";
import { handleCreateClient, handleListClients } from "@/lib/partners/client-api";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handleListClients(request);
}
export function POST(request: Request) {
  return handleCreateClient(request);
}
export { outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
