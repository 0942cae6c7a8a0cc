import { API_CSP } from "./security-headers";

/** A JSON response with the API baseline: nothing may load, nothing may frame it. */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  if (!headers.has("Content-Security-Policy")) headers.set("Content-Security-Policy", API_CSP);
  return new Response(JSON.stringify(body), { ...init, headers });
}
