/**
 * Whether an error means the database cannot be reached right now (down,
 * restarting, connections cut or exhausted), as opposed to a bug or bad data.
 * Such failures are answered 503 with Retry-After in each endpoint's own
 * error shape, never 500: the request can simply be repeated.
 */

/** Seconds a client is told to wait (Retry-After) before repeating a request refused by an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** Prisma's connection-level error codes. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);

/** Driver-adapter error kinds that concern the connection, not the query. */
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
  "TlsConnectionError",
]);

/** Network errors of the socket underneath. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND"]);

/** PostgreSQL SQLSTATEs: class 08 (connection exception) and the shutdown states of class 57. */
const isUnavailableSqlState = (code: string) =>
  code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code);

function codesOf(value: object): string[] {
  const record = value as Record<string, unknown>;
  return [record.code, record.kind, record.originalCode].filter(
    (field): field is string => typeof field === "string",
  );
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (current === null || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    for (const code of codesOf(current)) {
      if (PRISMA_CODES.has(code) || ADAPTER_KINDS.has(code) || SOCKET_CODES.has(code)) return true;
      if (/^[0-9A-Z]{5}$/.test(code) && isUnavailableSqlState(code)) return true;
    }
    const record = current as Record<string, unknown>;
    queue.push(record.cause, record.meta, record.driverAdapterError);
  }
  return false;
}
