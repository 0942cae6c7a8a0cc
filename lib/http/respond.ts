import { answeringDirectly } from "../request-context";
import { API_CSP } from "./security-headers";

/**
 * The text of each JSON answer made here, by its Response: the service's
 * HTTP server writes a direct route's answer from it instead of reading it
 * back out of the Response's stream (docs/edge.md, "Direct routes"). While a
 * direct route's handler runs, the Response is made without a body stream
 * at all: its text is only here, and nothing but the server reads it.
 */
const TEXTS_KEY = Symbol.for("bank-connect.json-texts");
// On globalThis, like the request context: every copy of this module must see the same texts.
const jsonTexts = ((globalThis as { [TEXTS_KEY]?: WeakMap<Response, string> })[TEXTS_KEY] ??=
  new WeakMap<Response, string>());

/** The JSON text `response` was made with by jsonResponse, if it was. */
export const jsonTextOf = (response: Response): string | undefined => jsonTexts.get(response);

/** A JSON response with the API baseline: nothing may load, nothing may frame it. */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const text = JSON.stringify(body);
  const response = new Response(answeringDirectly() ? null : text, {
    ...init,
    headers: jsonHeaders(init.headers),
  });
  jsonTexts.set(response, text);
  return response;
}

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * `headers` with the JSON content type and, unless it has one, the API's
 * Content-Security-Policy. A plain record becomes name-value pairs, so the
 * Response makes the only Headers object.
 */
function jsonHeaders(headers: HeadersInit | undefined): HeadersInit {
  if (headers instanceof Headers || Array.isArray(headers)) {
    const copy = new Headers(headers);
    copy.set("Content-Type", JSON_TYPE);
    if (!copy.has("Content-Security-Policy")) copy.set("Content-Security-Policy", API_CSP);
    return copy;
  }
  const pairs: [string, string][] = [["Content-Type", JSON_TYPE]];
  let policy = false;
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === "content-type") continue;
    if (lower === "content-security-policy") policy = true;
    pairs.push([name, value]);
  }
  if (!policy) pairs.push(["Content-Security-Policy", API_CSP]);
  return pairs;
}

export const NO_STORE = { "Cache-Control": "no-store" } as const;

/** A JSON answer no cache may keep: everything about one user, partner or key. */
export function privateJson(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(body, { status, headers: { ...NO_STORE, ...headers } });
}

/** The `{error, error_description}` refusal the API and dashboard endpoints answer with. */
export const errorJson = (status: number, error: string, description: string) =>
  privateJson({ error, error_description: description }, status);
