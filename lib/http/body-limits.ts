import { API_CSP } from "./security-headers";

/**
 * How large a request body each path accepts (docs/request-bodies.md). The
 * service's HTTP server refuses a larger body with 413 before any handler
 * runs (scripts/lib/body-guard.ts); the handlers read bodies through
 * readFormBody / readJsonBody (or, for an upload, readBodyBytes) below, which
 * refuse rather than truncate, so no handler ever acts on the first part of
 * a body. They are the only readers of request bodies in lib/ and app/
 * (test/body-readers.test.ts).
 */

export interface BodyLimit {
  /** A path prefix; the longest matching prefix wins. */
  prefix: string;
  bytes: number;
}

const KIB = 1024;

/** Pages, the hosted flow's forms and the demo: small forms, with room to spare. */
export const DEFAULT_BODY_LIMIT = 1024 * KIB;

export const BODY_LIMITS = [
  // Token, revoke, cancel: short forms (the handlers' own limit, lib/oauth/params.ts).
  { prefix: "/oauth/", bytes: 64 * KIB },
  // Sync requests, branding and client JSON, recipient keys: a few KiB at most.
  { prefix: "/api/", bytes: 64 * KIB },
  // The logo itself (at most 512 KiB), with room for the handler to name that limit.
  { prefix: "/api/partner/logo", bytes: 1024 * KIB },
] as const satisfies readonly BodyLimit[];

export function bodyLimitFor(pathname: string): number {
  let best: BodyLimit | null = null;
  for (const limit of BODY_LIMITS) {
    if (pathname.startsWith(limit.prefix) && (!best || limit.prefix.length > best.prefix.length))
      best = limit;
  }
  return best?.bytes ?? DEFAULT_BODY_LIMIT;
}

/** The path of a request target as routing sees it (dot segments resolved), or "/" when unreadable. */
export function pathnameOf(target: string): string {
  try {
    return new URL(target, "http://service.invalid").pathname;
  } catch {
    return "/";
  }
}

/**
 * The 413 answer in a shape the path's callers read: JSON for /api and
 * /oauth, carrying both the OAuth error fields and the sync problem fields
 * (`status`, `reason`) the SDKs read from a failed POST; a short plain text
 * otherwise.
 */
export function bodyTooLargeAnswer(
  pathname: string,
  limit: number,
): { contentType: string; body: string } {
  const description = `the request body is larger than the ${limit} bytes this endpoint accepts`;
  if (pathname.startsWith("/api/") || pathname.startsWith("/oauth/")) {
    return {
      contentType: "application/json; charset=utf-8",
      body: JSON.stringify({
        error: "invalid_request",
        error_description: description,
        status: 413,
        reason: "invalid_request",
      }),
    };
  }
  return {
    contentType: "text/plain; charset=utf-8",
    body: `Request body too large: ${description}.\n`,
  };
}

export function bodyTooLargeResponse(pathname: string, limit: number): Response {
  const answer = bodyTooLargeAnswer(pathname, limit);
  return new Response(answer.body, {
    status: 413,
    headers: {
      "Content-Type": answer.contentType,
      "Content-Security-Policy": API_CSP,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the request body is larger than ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/**
 * Bodies the service's HTTP server read whole before a direct route's handler
 * ran (docs/edge.md, "Direct routes"), by their Request: the handler reads
 * them from here rather than through a stream made of the same bytes.
 */
const BODIES_KEY = Symbol.for("bank-connect.bodies-read");
// On globalThis, like the JSON texts of lib/http/respond.ts: every copy of this module must see them.
const bodiesRead = ((globalThis as { [BODIES_KEY]?: WeakMap<Request, Uint8Array> })[BODIES_KEY] ??=
  new WeakMap<Request, Uint8Array>());

/**
 * A Request whose body has already been read whole: `readBodyBytes` (the one
 * way handlers read a body) answers it from `bytes`. It carries no body
 * stream of its own.
 */
export function requestWithBody(
  url: string,
  init: { method: string; headers: HeadersInit },
  bytes: Uint8Array,
): Request {
  const request = new Request(url, init);
  bodiesRead.set(request, bytes);
  return request;
}

/**
 * The whole body, or BodyTooLargeError once it is known to be larger than
 * `limit` (by its Content-Length, or while reading: the rest is not read).
 */
export async function readBodyBytes(
  request: Request,
  limit = bodyLimitFor(pathnameOf(request.url)),
): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError(limit);
  const read = bodiesRead.get(request);
  if (read) {
    if (read.byteLength > limit) throw new BodyTooLargeError(limit);
    return read;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel();
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The body as text, decoded as `Request.text()` does (UTF-8, BOM dropped, bad bytes replaced). */
export async function readBodyText(request: Request, limit?: number): Promise<string> {
  return new TextDecoder().decode(await readBodyBytes(request, limit));
}

/**
 * A body read whole and parsed, or why not: larger than the limit (nothing
 * after the limit was read), or not parseable as the kind asked for. Each
 * caller answers the problem in its endpoint's own shape.
 */
export type BodyRead<T> =
  | { ok: true; value: T }
  | { ok: false; problem: "too_large"; limit: number }
  | { ok: false; problem: "malformed" };

async function readCapped<T>(
  request: Request,
  limit: number | undefined,
  parse: (text: string) => BodyRead<T>,
): Promise<BodyRead<T>> {
  let text: string;
  try {
    text = await readBodyText(request, limit);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    return { ok: false, problem: "too_large", limit: error.limit };
  }
  return parse(text);
}

/** An application/x-www-form-urlencoded body (any text parses as a form). */
export function readFormBody(request: Request, limit?: number): Promise<BodyRead<URLSearchParams>> {
  return readCapped(request, limit, (text) => ({ ok: true, value: new URLSearchParams(text) }));
}

/** A JSON body (RFC 8259): any JSON value; the caller checks its shape. */
export function readJsonBody(request: Request, limit?: number): Promise<BodyRead<unknown>> {
  return readCapped(request, limit, (text) => {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: false, problem: "malformed" };
    }
  });
}

/** The path's 413 answer (the same the service's HTTP server gives) for a body over `limit`. */
export const bodyTooLargeFor = (request: Request, limit: number): Response =>
  bodyTooLargeResponse(pathnameOf(request.url), limit);
