import { handleCancelRequest } from "@/lib/flow/cancel";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleCancelRequest(request);
}
