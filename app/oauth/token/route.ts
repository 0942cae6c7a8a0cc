import { handleTokenRequest } from "@/lib/oauth/token";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleTokenRequest(request);
}
