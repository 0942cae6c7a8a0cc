import { livezRoute } from "@/lib/api/direct-routes";

export const dynamic = "force-dynamic";

// Liveness (docs/operations.md, "Probes"); the service's HTTP server answers it without Next.
export const GET = livezRoute;
