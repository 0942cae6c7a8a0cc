/**
 * Whether an error means the database cannot serve this request right now
 * (down, restarting, crashed, connections cut, or every pooled connection
 * busy for longer than a request may wait), as opposed to a bug or bad data.
 * Such failures are answered 503 with Retry-After in each endpoint's own
 * error shape, never 500: the request can simply be repeated, and whatever
 * transaction it had open was rolled back. docs/capacity.md lists the cases.
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

/**
 * The errors node-postgres raises without any code when a connection dies or
 * cannot be had: the server went away mid-query (a crash, a kill), a query
 * was sent on a connection the server had already closed, or the pool had no
 * free connection within its timeout. Matched by their exact wording, which
 * no query error shares.
 */
const DRIVER_MESSAGES = new Set([
  "Connection terminated unexpectedly",
  "Connection terminated due to connection timeout",
  "Client has encountered a connection error and is not queryable",
  "timeout exceeded when trying to connect",
]);

/**
 * P2028 is Prisma's code for every interactive-transaction failure. Two of
 * them mean the database was too busy, not that the code is wrong: the
 * transaction could not get a connection within `maxWait`, or it ran past
 * its `timeout` (and was rolled back). Its other messages (an invalid
 * isolation level, an internal consistency error) are bugs.
 */
function isBusyTransaction(record: Record<string, unknown>): boolean {
  if (record.code !== "P2028") return false;
  const message = typeof record.message === "string" ? record.message : "";
  if (message.includes("Unable to start a transaction in the given time")) return true;
  const meta = record.meta as Record<string, unknown> | undefined;
  return typeof meta?.timeout === "number" && typeof meta.timeTaken === "number";
}

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
    const record = current as Record<string, unknown>;
    for (const code of codesOf(current)) {
      if (PRISMA_CODES.has(code) || ADAPTER_KINDS.has(code) || SOCKET_CODES.has(code)) return true;
      if (/^[0-9A-Z]{5}$/.test(code) && isUnavailableSqlState(code)) return true;
    }
    if (isBusyTransaction(record)) return true;
    if (
      current instanceof Error &&
      record.code === undefined &&
      DRIVER_MESSAGES.has(current.message)
    ) {
      return true;
    }
    queue.push(record.cause, record.meta, record.driverAdapterError);
  }
  return false;
}
