import { openApiDocument } from "@/lib/api/openapi";
import { jsonResponse } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export function GET() {
  return jsonResponse(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
