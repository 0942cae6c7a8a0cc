import { getEnv, type Env } from "../env";
import { API_CSP } from "../http/security-headers";
import { buildServerMetadata, METADATA_MAX_AGE_SECONDS } from "./metadata";

/**
 * RFC 8414 metadata is a constant of the process's settings: its bytes are
 * built once and answered by the edge (lib/http/edge.ts, given this as a
 * constant document by the HTTP server) without entering Next; the route handler serves the same bytes.
 */

export const DISCOVERY_PATH = "/.well-known/oauth-authorization-server";

export const DISCOVERY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "application/json; charset=utf-8",
  "Content-Security-Policy": API_CSP,
  "Cache-Control": `public, max-age=${METADATA_MAX_AGE_SECONDS}`,
};

let built: { env: Env; body: string } | null = null;

/** The document's bytes for this process's settings (built again only after a settings change). */
export function discoveryBody(): string {
  const env = getEnv();
  if (built?.env !== env) {
    const metadata = buildServerMetadata({
      issuer: env.issuer,
      vendorBlock: env.vendorBlock,
      documentationUrl: env.documentationUrl,
      recipientKeyRequired: env.recipientKeyRequired,
    });
    built = { env, body: JSON.stringify(metadata) };
  }
  return built.body;
}

/** The edge's answer for the discovery path (null for any other path). */
export function discoveryAnswer(pathname: string) {
  if (pathname !== DISCOVERY_PATH) return null;
  return { status: 200, headers: { ...DISCOVERY_HEADERS }, body: discoveryBody() };
}
