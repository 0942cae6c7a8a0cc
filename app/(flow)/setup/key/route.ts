import { handleKeyRegistration } from "@/lib/flow/key-setup";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleKeyRegistration(request);
}
