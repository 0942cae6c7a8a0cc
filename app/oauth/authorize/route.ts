import { handleAuthorizeRequest } from "@/lib/oauth/authorize";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handleAuthorizeRequest(request);
}
