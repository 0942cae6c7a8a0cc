import { handleAuthorizeRequest } from "@/lib/flow/start";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handleAuthorizeRequest(request);
}
