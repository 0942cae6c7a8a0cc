import { demoNotFound, handleDemoStart } from "@/lib/demo/demo";

export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return handleDemoStart(request);
}

/** The demo's endpoints take form POSTs only. */
export function GET() {
  return demoNotFound();
}
