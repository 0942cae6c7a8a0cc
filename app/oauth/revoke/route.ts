import { handleRevokeRequest } from "@/lib/oauth/revoke";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleRevokeRequest(request);
}
