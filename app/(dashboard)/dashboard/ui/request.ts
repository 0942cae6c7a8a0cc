/**
 * The dashboard's calls to its own endpoints: the session's CSRF token in
 * X-CSRF-Token, the partner chosen with ?partner=, and an answer that never
 * throws (a network failure is status 0), so every screen can say what
 * happened.
 */

export interface Answer<T = Record<string, unknown>> {
  ok: boolean;
  status: number;
  body: T & { error?: string; error_description?: string; violations?: Violation[] };
}

export interface Violation {
  field: string;
  code: string;
  message: string;
}

export interface Endpoint {
  partnerId?: string;
  csrf: string;
}

export async function send<T = Record<string, unknown>>(
  endpoint: Endpoint,
  path: string,
  init: { method: string; json?: unknown; body?: Blob; contentType?: string },
): Promise<Answer<T>> {
  const query = endpoint.partnerId ? `?partner=${encodeURIComponent(endpoint.partnerId)}` : "";
  const headers: Record<string, string> = { "X-CSRF-Token": endpoint.csrf };
  if (init.json !== undefined) headers["Content-Type"] = "application/json";
  else if (init.body) headers["Content-Type"] = init.contentType || "application/octet-stream";
  try {
    const response = await fetch(`${path}${query}`, {
      method: init.method,
      headers,
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
    const body = (
      response.status === 204 ? {} : await response.json().catch(() => ({}))
    ) as Answer<T>["body"];
    return { ok: response.ok, status: response.status, body };
  } catch {
    return { ok: false, status: 0, body: {} as Answer<T>["body"] };
  }
}
