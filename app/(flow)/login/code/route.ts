import { handleLoginCode } from "@/lib/flow/login";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleLoginCode(request);
}
