import { API_CSP } from "./security-headers";

/** A JSON response with the API baseline: nothing may load, nothing may frame it. */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  if (!headers.has("Content-Security-Policy")) headers.set("Content-Security-Policy", API_CSP);
  return new Response(JSON.stringify(body), { ...init, headers });
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
