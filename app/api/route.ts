import { refuseOutsideScope } from "@/lib/keys/api-key-auth";

export const dynamic = "force-dynamic";

// `/api` itself is outside the five data operations, like every path the
// catch-all beside it answers: 401 without a valid key, 403 insufficient_scope
// with one (RFC 6750 §3.1), never the HTML 404 page.
const refuse = (request: Request) => refuseOutsideScope(request);

export { refuse as GET, refuse as POST, refuse as PUT, refuse as PATCH, refuse as DELETE };
