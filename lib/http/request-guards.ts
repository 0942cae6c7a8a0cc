import { errorJson, privateJson } from "./respond";

/**
 * Requests refused before routing (see docs/security.md: bad input gets a clear 4xx,
 * never a 500). Next answers a TRACE or an unknown method with a 500, and a
 * dynamic path segment that is not valid percent-encoding (or that encodes a
 * NUL, which no id can hold) fails while Next decodes the route's params.
 */

/** The methods Next serves; any other (TRACE, PROPFIND, …) is refused with 405. */
export const SERVED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The route-handler prefixes whose paths carry ids (`[id]`, `[clientId]`, `[file]`, `[...path]`). */
const ID_PATHS = ["/api/", "/logos/", "/account/passkeys/"];

/** Every `%` starts a valid escape, the escapes decode as UTF-8, and none is a NUL. */
export function isWellFormedPath(pathname: string): boolean {
  try {
    return !decodeURIComponent(pathname).includes("\u0000");
  } catch {
    return false;
  }
}

/** An id path that is not well formed: refused before routing, whatever the method. */
export function isMalformedIdPath(pathname: string): boolean {
  return ID_PATHS.some((prefix) => pathname.startsWith(prefix)) && !isWellFormedPath(pathname);
}

export function refuseBeforeRouting(method: string, pathname: string): Response | null {
  if (!SERVED_METHODS.has(method.toUpperCase())) {
    return new Response(null, { status: 405, headers: { Allow: [...SERVED_METHODS].join(", ") } });
  }
  if (!isMalformedIdPath(pathname)) return null;
  const description = "the path is not valid percent-encoded UTF-8";
  // The sync operations answer problems as {status, reason, detail} (lib/api/sync.ts).
  if (/^\/api\/accounts\/[^/]*\/sync$/.test(pathname)) {
    return privateJson({ status: 400, reason: "invalid_request", detail: description }, 400);
  }
  if (pathname.startsWith("/api/")) return errorJson(400, "invalid_request", description);
  // A passkey of My access: no passkey has such an id, as its routes answer.
  if (pathname.startsWith("/account/passkeys/")) {
    return errorJson(404, "not_found", "no such passkey");
  }
  // Logos answer 404 for any name that is not a stored logo's.
  return new Response("Not found", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}
