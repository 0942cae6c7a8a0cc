import { userinfoRoute } from "@/lib/api/direct-routes";

export const dynamic = "force-dynamic";

// The service's HTTP server answers this route from the same handler without Next (docs/edge.md).
export const GET = userinfoRoute;
