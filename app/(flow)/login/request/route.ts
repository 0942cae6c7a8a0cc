import { handleLoginRequest } from "@/lib/flow/login";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleLoginRequest(request);
}
