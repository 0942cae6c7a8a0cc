import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/**
 * What every log line and span of one request shares: its id. The store is
 * kept on globalThis because the service's HTTP server and Next's bundle of
 * the route handlers each load their own copy of this module, and both must
 * see the request the server entered.
 */
export interface RequestContext {
  requestId: string;
  /**
   * The service's HTTP server answers this request from a direct route's
   * handler, writing JSON answers from their text (lib/http/respond.ts).
   */
  answeredDirectly?: boolean;
}

const STORE_KEY = Symbol.for("bank-connect.request-context");
const holder = globalThis as unknown as { [STORE_KEY]?: AsyncLocalStorage<RequestContext> };
const storage = (holder[STORE_KEY] ??= new AsyncLocalStorage<RequestContext>());

export const REQUEST_ID_HEADER = "x-request-id";

/**
 * An id a proxy may hand on: short, printable, and unable to break a log line
 * or a header (letters, digits and `-._:` only).
 */
const WELL_FORMED_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * The request's id: the trusted proxy's well-formed `X-Request-Id`, or a new
 * one. Without a trusted proxy the header is ignored, as any client could
 * have set it.
 */
export function requestIdFor(
  incoming: string | string[] | undefined,
  trustedProxyHops: number,
): string {
  const value = Array.isArray(incoming) ? undefined : incoming;
  if (trustedProxyHops > 0 && value !== undefined && WELL_FORMED_ID.test(value)) return value;
  return randomUUID();
}

export function runInRequest<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** Runs a direct route's handler (docs/edge.md, "Direct routes") in the request's context. */
export function runAnsweringDirectly<T>(work: () => T): T {
  const current = storage.getStore();
  return current ? storage.run({ ...current, answeredDirectly: true }, work) : work();
}

/** True while a direct route's handler runs for this request. */
export function answeringDirectly(): boolean {
  return storage.getStore()?.answeredDirectly === true;
}

/** The id of the request this code runs for, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
