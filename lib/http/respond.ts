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
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  if (!headers.has("Content-Security-Policy")) headers.set("Content-Security-Policy", API_CSP);
  const text = JSON.stringify(body);
  const response = new Response(answeringDirectly() ? null : text, { ...init, headers });
  jsonTexts.set(response, text);
  return response;
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
