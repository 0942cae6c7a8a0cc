import { isDatabaseReachable } from "@/lib/db/health";
import { jsonResponse } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** Liveness and readiness: 503 while the database cannot be reached. */
export async function GET() {
  const database = await isDatabaseReachable();
  return jsonResponse(
    { status: database ? "ok" : "unavailable", database: database ? "ok" : "unreachable" },
    { status: database ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}
