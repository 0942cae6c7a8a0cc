import { createHmac, hkdfSync } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import pg from "pg";

/**
 * The data reads' baseline: a plain node:http server with a pg pool that
 * answers GET /api/accounts and a transactions page (limit, offset or
 * cursor) with the same JSON bytes as the service, in as many statements as
 * the service: the accounts with the API-key check in one statement (a join
 * of the key by its keyed hash to the tenant's accounts), a page after the
 * key check on its own (two). No framework, no validation library, no ORM.
 * Started as a child:
 *
 *   tsx scripts/bench/bare-pg-server.ts <port> <database-url> <pool-size>
 *
 * with the service's SECRET_KEY in BENCH_SECRET_KEY (API keys are stored as
 * keyed hashes).
 */

const [port = "0", databaseUrl = "", poolSize = "10"] = process.argv.slice(2);
// eslint-disable-next-line no-restricted-properties -- a standalone baseline, not the product
const secretKey = process.env.BENCH_SECRET_KEY ?? "";
const apiKeyHashKey = Buffer.from(
  hkdfSync("sha256", secretKey, "bank-connect/keyed-hash/v1", "keyed-hash:api-key", 32),
);
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize) });
pool.on("error", () => undefined);

const run = <Row extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) =>
  pool.query<Row>({ name, text, values }).then((result) => result.rows);

function json(response: ServerResponse, status: number, body: string) {
  response.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
  response.end(body);
}

function keyHash(authorization: string | undefined): string | null {
  const key = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
  return key ? createHmac("sha256", apiKeyHashKey).update(key).digest("hex") : null;
}

async function tenantOf(authorization: string | undefined): Promise<string | null> {
  const hash = keyHash(authorization);
  if (!hash) return null;
  const [row] = await run<{ tenantId: string; suspended: boolean }>(
    "key",
    `SELECT k."tenantId", COALESCE(p."status" = 'suspended', false) AS "suspended"
       FROM "ApiKey" k JOIN "Tenant" t ON t."id" = k."tenantId" JOIN "User" u ON u."id" = t."userId"
       JOIN "Client" c ON c."id" = k."clientId" LEFT JOIN "Partner" p ON p."id" = c."partnerId"
      WHERE k."keyHash" = $1 AND k."revokedAt" IS NULL AND k."expiresAt" > $2`,
    [hash, new Date().toISOString()],
  );
  return row && !row.suspended ? row.tenantId : null;
}

type Balance = { type: string; currency: string; referenceDate: string | null; enc: string };
type AccountRow = Record<string, unknown> & {
  id: string | null;
  balances: Balance[];
  suspended: boolean;
};

/**
 * The key and its tenant's accounts in one statement: no row for an unknown,
 * revoked or expired key; one row with a null id for a key without accounts
 * (or of a suspended partner, whose accounts are not read).
 */
async function accounts(authorization: string | undefined): Promise<string | null | "suspended"> {
  const hash = keyHash(authorization);
  if (!hash) return null;
  const rows = await run<AccountRow>(
    "accounts",
    `SELECT a."id", cn."aspspName", cn."aspspCountry", a."currency", a."accountType", a."bic",
            (a."needsReconnect" AND NOT a."consentWithdrawn") AS "needsReconnect",
            COALESCE((SELECT json_agg(json_build_object('type', b."balanceType",
                        'currency', b."currency", 'referenceDate', b."referenceDate", 'enc', b."enc")
                      ORDER BY b."balanceType", b."position") FROM "Balance" b WHERE b."accountId" = a."id"),
                     '[]'::json) AS "balances",
            a."enc", a."displayNameEnc", a."uidEnc",
            COALESCE(p."status" = 'suspended', false) AS "suspended"
       FROM "ApiKey" k JOIN "Client" c ON c."id" = k."clientId"
       LEFT JOIN "Partner" p ON p."id" = c."partnerId"
       LEFT JOIN ("Account" a JOIN "Connection" cn ON cn."id" = a."connectionId")
         ON a."tenantId" = k."tenantId" AND p."status" IS DISTINCT FROM 'suspended'
      WHERE k."keyHash" = $1 AND k."revokedAt" IS NULL AND k."expiresAt" > $2
      ORDER BY a."createdAt", a."id"`,
    [hash, new Date().toISOString()],
  );
  const [first] = rows;
  if (!first) return null;
  if (first.suspended) return "suspended";
  return JSON.stringify(
    rows.filter((row) => row.id !== null).map(({ suspended: _suspended, ...account }) => account),
  );
}

const COLUMNS = `tr."id", tr."currency", tr."creditDebitIndicator", tr."status", tr."bookingDate",
  tr."valueDate", tr."transactionDate", tr."bankTransactionCode", tr."enc"`;
const ORDER = `tr."bookingDate" DESC NULLS FIRST, tr."transactionDate" DESC NULLS FIRST, tr."id"`;

type Item = Record<string, unknown> & {
  id: string | null;
  bookingDate: string | null;
  transactionDate: string | null;
};

/**
 * The keyset after a cursor's row, as the service reads it (three ranges of
 * the index); the benchmark's cursors name rows with both dates, so the
 * NULL cases of the service's version are left out.
 */
function afterCursor(): string {
  const segment = (condition: string) => `(SELECT ${COLUMNS} FROM "Transaction" tr
      WHERE tr."accountId" = a."id" AND ${condition} ORDER BY ${ORDER} LIMIT $3)`;
  return `SELECT * FROM (
      ${segment(`tr."bookingDate" = $4 AND tr."transactionDate" = $5 AND tr."id" > $6::uuid`)}
      UNION ALL ${segment(`tr."bookingDate" = $4 AND tr."transactionDate" < $5`)}
      UNION ALL ${segment(`tr."bookingDate" < $4`)}
    ) tr ORDER BY ${ORDER} LIMIT $3`;
}

async function transactions(tenantId: string, accountId: string, query: URLSearchParams) {
  const limit = Number(query.get("limit") ?? "100");
  const raw = query.get("cursor");
  const cursor = raw
    ? (JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as unknown[])
    : null;
  const offset = Number(query.get("offset") ?? "0");
  // Deep offsets skip rows in the index alone, then read the page (as the service does).
  const page = cursor
    ? afterCursor()
    : offset < 1000
      ? `SELECT ${COLUMNS} FROM "Transaction" tr WHERE tr."accountId" = a."id"
          ORDER BY ${ORDER} LIMIT $3 OFFSET ${offset}`
      : `SELECT ${COLUMNS} FROM (SELECT tr."id" FROM "Transaction" tr WHERE tr."accountId" = a."id"
          ORDER BY ${ORDER} LIMIT $3 OFFSET ${offset}) page
          JOIN "Transaction" tr ON tr."id" = page."id" ORDER BY ${ORDER}`;
  const rows = await run<Item & { total: number }>(
    cursor ? "page-cursor" : `page-offset-${offset}`,
    `SELECT ${cursor ? "$7::int" : `a."transactionCount"`} AS "total", tr.*
       FROM "Account" a LEFT JOIN LATERAL (${page}) tr ON true
      WHERE a."id" = $1 AND a."tenantId" = $2`,
    cursor
      ? [accountId, tenantId, limit + 1, cursor[1], cursor[2], cursor[3], cursor[4]]
      : [accountId, tenantId, limit + 1],
  );
  const [first] = rows;
  if (!first) return null;
  const items = rows.filter((row) => row.id !== null).map(({ total: _total, ...item }) => item);
  const last = items[limit - 1];
  const next =
    items.length > limit && last
      ? Buffer.from(
          JSON.stringify([
            "t1",
            last.bookingDate,
            last.transactionDate,
            last.id,
            first.total,
            null,
            null,
          ]),
        ).toString("base64url")
      : null;
  return JSON.stringify({ items: items.slice(0, limit), total: Number(first.total), next });
}

createServer((request, response) => {
  request.resume();
  const url = new URL(request.url ?? "/", "http://localhost");
  const transactionsPath = /^\/api\/accounts\/([0-9a-f-]{36})\/transactions$/.exec(url.pathname);
  const { authorization } = request.headers;
  (async () => {
    if (url.pathname === "/") return json(response, 200, "{}");
    if (url.pathname === "/api/accounts") {
      const body = await accounts(authorization);
      if (body === "suspended") return json(response, 403, '{"error":"partner_suspended"}');
      return body ? json(response, 200, body) : json(response, 401, '{"error":"invalid_token"}');
    }
    const tenantId = await tenantOf(authorization);
    if (!tenantId) return json(response, 401, '{"error":"invalid_token"}');
    const body = transactionsPath
      ? await transactions(tenantId, transactionsPath[1] ?? "", url.searchParams)
      : null;
    return body ? json(response, 200, body) : json(response, 404, '{"error":"not_found"}');
  })().catch((error: unknown) => json(response, 500, JSON.stringify(String(error))));
}).listen(Number(port), "127.0.0.1", () => console.log("ready"));
