import { DISCOVERY_HEADERS, discoveryBody } from "@/lib/oauth/discovery";

export const dynamic = "force-dynamic";

/**
 * The service's HTTP server answers this path at the edge (lib/http/edge.ts);
 * this handler serves the same bytes to anything that reaches Next directly.
 */
export function GET() {
  return new Response(discoveryBody(), { headers: DISCOVERY_HEADERS });
}
