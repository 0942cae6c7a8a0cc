import { handleSandboxDecision } from "@/lib/upstream/sandbox-decision";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleSandboxDecision(request);
}
