import { handleLinkConfirm } from "@/lib/flow/login";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleLinkConfirm(request);
}
