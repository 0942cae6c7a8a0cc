import { readyzRoute } from "@/lib/api/direct-routes";

export const dynamic = "force-dynamic";

// Readiness (docs/operations.md, "Probes"); the service's HTTP server answers it without Next.
export const GET = readyzRoute;
