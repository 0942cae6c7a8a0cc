import { refuseOutsideScope } from "@/lib/oauth/bearer";

export const dynamic = "force-dynamic";

// Every API path outside the five data operations answers 403 to a key (/docs/data).
const refuse = (request: Request) => refuseOutsideScope(request);

export { refuse as GET, refuse as POST, refuse as PUT, refuse as PATCH, refuse as DELETE };
