// The benchmarks' second baseline: a Next.js route handler returning a constant.
const BODY = JSON.stringify({ status: "ok" });

export const dynamic = "force-dynamic";

export function GET() {
  return new Response(BODY, { headers: { "Content-Type": "application/json; charset=utf-8" } });
}
