import { accountsRoute } from "@/lib/api/direct-routes";
import { outsideScope } from "@/lib/api/route";

export const dynamic = "force-dynamic";

// The service's HTTP server answers this route from the same handler without Next (docs/edge.md).
export const GET = accountsRoute;
export { outsideScope as POST, outsideScope as PUT, outsideScope as PATCH, outsideScope as DELETE };
