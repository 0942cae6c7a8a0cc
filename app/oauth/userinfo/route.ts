import { handleUserinfoRequest } from "@/lib/oauth/userinfo";

export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return handleUserinfoRequest(request);
}
