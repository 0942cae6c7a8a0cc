import { handleConsentApprove } from "@/lib/flow/consent";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleConsentApprove(request);
}
