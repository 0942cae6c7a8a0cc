import { refuseOutsideScope } from "@/lib/oauth/bearer";

export const dynamic = "force-dynamic";

// SPEC 5.5: every API path outside the five data operations answers 403 to a key.
const refuse = (request: Request) => refuseOutsideScope(request);

export { refuse as GET, refuse as POST, refuse as PUT, refuse as PATCH, refuse as DELETE };
