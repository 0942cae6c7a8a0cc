import { outsideScope } from "@/lib/api/route";

export const dynamic = "force-dynamic";

// `/api` itself is outside the five data operations, like every path the
// catch-all beside it answers: 401 without a valid key, 403 insufficient_scope
// with one (RFC 6750 §3.1), never the HTML 404 page.
export { outsideScope as GET, outsideScope as POST, outsideScope as PUT };
export { outsideScope as PATCH, outsideScope as DELETE };
