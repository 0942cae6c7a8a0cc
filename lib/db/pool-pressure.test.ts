import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as loginCode } from "@/app/(flow)/login/code/route";
import { POST as loginRequest } from "@/app/(flow)/login/request/route";
import { POST as registerKey } from "@/app/(flow)/setup/key/route";
import { GET as listAccounts } from "@/app/api/accounts/route";
import { GET as listTransactions } from "@/app/api/accounts/[id]/transactions/route";
import { POST as bulkSync } from "@/app/api/sync/route";
import { GET as healthz } from "@/app/healthz/route";
import { connectedPartnerUser } from "@/test/bank-data";
import { holdConnections, SideConnection, useScratchDatabase } from "@/test/db-pressure";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  issueCode,
  newVerifier,
  signedInCookie,
  tokenRequest,
  uniqueEmail,
} from "@/test/oauth-fixtures";
import { loginNonceCookieName } from "../auth/login-challenges";
import { sessionCookieName } from "../auth/sessions";
import {
  SYNC_QUEUE_WAIT_MS,
  SYNC_RETRY_AFTER_SECONDS,
  syncsWaitingForSlot,
} from "../banking/budget";
import { CLIENT_IP_HEADER } from "../http/client-ip";
import { findLastMessage } from "../mail";
import { handleTokenRequest } from "../oauth/token";
import { handleUserinfoRequest } from "../oauth/userinfo";
import { db, syncDb } from "./client";
import { isDatabaseUnavailable } from "./faults";
import { query as queryRows, sql, statement } from "./sql";

/** A statement that touches no table. */
const one = statement("test.one", (n: number) => sql`SELECT ${n}::int AS "one"`, [[1]]);

/**
 * Pool exhaustion, on a database of this file's own: two request
 * connections, a sync budget of one, half a second's wait for a connection.
 * Every endpoint then answers its documented 503 with Retry-After instead of
 * a 500 or an endless wait, and syncs never take sign-in's connections.
 */

const POOL_SIZE = 2;
let scratch: Awaited<ReturnType<typeof useScratchDatabase>>;

beforeAll(async () => {
  scratch = await useScratchDatabase("pool", {
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    DATABASE_POOL_TIMEOUT_MS: "500",
    SYNC_CONCURRENCY: "1",
  });
});

afterAll(async () => {
  await scratch.release();
});

async function captureError(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

const params = (values: Record<string, string> = {}) => ({ params: Promise.resolve(values) });
let ipCounter = 0;
const browserHeaders = (cookie = "") => ({
  "Content-Type": "application/x-www-form-urlencoded",
  Origin: ISSUER,
  [CLIENT_IP_HEADER]: `198.51.100.${(ipCounter += 1)}`,
  ...(cookie ? { Cookie: cookie } : {}),
});

/** A browser that asked for a sign-in mail: its nonce cookie and the mailed PIN. */
async function requestSignIn() {
  const email = uniqueEmail("pool");
  const requested = await loginRequest(
    new Request(`${ISSUER}/login/request`, {
      method: "POST",
      headers: browserHeaders(),
      body: new URLSearchParams({ email }),
    }),
  );
  const nonce = requested.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${loginNonceCookieName()}=`));
  const pin = (await findLastMessage(email))?.code ?? "";
  return { email, pin, cookie: (nonce ?? "").split(";")[0] ?? "" };
}

const postPin = (signIn: { email: string; pin: string; cookie: string }) =>
  loginCode(
    new Request(`${ISSUER}/login/code`, {
      method: "POST",
      headers: browserHeaders(signIn.cookie),
      body: new URLSearchParams({ email: signIn.email, code: signIn.pin }),
    }),
  );

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

function syncAll(key: string, items: { accountId: string; uid: string }[]) {
  return bulkSync(
    new Request(`${ISSUER}/api/sync`, {
      method: "POST",
      headers: { ...bearer(key), "Content-Type": "application/json" },
      body: JSON.stringify({ items }),
    }),
    params(),
  );
}

function expectRetryAfter(response: Response, seconds = "5") {
  expect(response.status).toBe(503);
  expect(response.headers.get("Retry-After")).toBe(seconds);
}

describe("isDatabaseUnavailable, on the real errors of a busy or broken pool", () => {
  it("recognises a transaction that could not start in time (P2028) and a query that found no free connection", async () => {
    const release = await holdConnections(db(), POOL_SIZE);
    try {
      const transaction = await captureError(() =>
        db().$transaction(async (tx) => tx.user.count(), { maxWait: 200 }),
      );
      expect(transaction).toMatchObject({ code: "P2028" });
      expect(String((transaction as Error).message)).toContain("Unable to start a transaction");
      expect(isDatabaseUnavailable(transaction)).toBe(true);

      const query = await captureError(() => db().user.count());
      expect((query as Error).message).toBe("timeout exceeded when trying to connect");
      expect(isDatabaseUnavailable(query)).toBe(true);

      // Hand-written statements wait for the same connections, and fail alike.
      const handWritten = await captureError(() => queryRows(one(1)));
      expect((handWritten as Error).message).toBe("timeout exceeded when trying to connect");
      expect(isDatabaseUnavailable(handWritten)).toBe(true);
    } finally {
      await release();
    }
  });

  it("recognises a transaction that ran past its timeout, and one whose connection the server cut", async () => {
    const expired = await captureError(() =>
      db().$transaction(
        async (tx) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return tx.user.count();
        },
        { timeout: 100 },
      ),
    );
    expect(expired).toMatchObject({ code: "P2028" });
    expect(isDatabaseUnavailable(expired)).toBe(true);

    const side = await SideConnection.open(scratch.url);
    try {
      const cut = await captureError(() =>
        db().$transaction(async (tx) => {
          const [row] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          await side.terminate(row?.pid ?? 0);
          return tx.user.count();
        }),
      );
      // node-postgres's own error, without any code.
      expect((cut as { code?: unknown }).code).toBeUndefined();
      expect((cut as Error).message).toMatch(
        /^(Connection terminated unexpectedly|Client has encountered a connection error and is not queryable)$/,
      );
      expect(isDatabaseUnavailable(cut)).toBe(true);
    } finally {
      await side.close();
    }
  });

  it("does not take a bug for an outage", async () => {
    const email = uniqueEmail("twice");
    await db().user.create({ data: { email } });
    const duplicate = await captureError(() => db().user.create({ data: { email } }));
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    const syntax = await captureError(() => db().$queryRawUnsafe("SELEC 1"));
    expect(isDatabaseUnavailable(syntax)).toBe(false);
    const consistency = Object.assign(
      new Error("Transaction API error: Internal Consistency Error: no savepoint"),
      { code: "P2028", meta: {} },
    );
    expect(isDatabaseUnavailable(consistency)).toBe(false);
    expect(isDatabaseUnavailable(new Error("Connection terminated"))).toBe(false);
    expect(isDatabaseUnavailable(new Error("timeout exceeded when trying to parse"))).toBe(false);
  });
});

describe("an exhausted request pool answers each endpoint's 503 with Retry-After, never 500", () => {
  it("sign-in, token exchange, userinfo, data API, bulk sync, key setup and /healthz", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const partner = await connectedPartnerUser();
    const signIn = await requestSignIn();
    const session = await signedInCookie((await createTestUser()).id);

    const release = await holdConnections(db(), POOL_SIZE);
    try {
      const pin = await postPin(signIn);
      expect(pin.status).toBe(303);
      expect(pin.headers.get("Location")).toBe("/error?reason=unavailable");

      const token = await handleTokenRequest(tokenRequest(client, code, verifier));
      expectRetryAfter(token);
      expect(await token.json()).toMatchObject({ error: "temporarily_unavailable" });

      const userinfo = await handleUserinfoRequest(
        new Request(`${ISSUER}/oauth/userinfo`, { headers: bearer(partner.key) }),
      );
      expectRetryAfter(userinfo);

      const accounts = await listAccounts(
        new Request(`${ISSUER}/api/accounts`, { headers: bearer(partner.key) }),
        params(),
      );
      expectRetryAfter(accounts);
      expect(await accounts.json()).toEqual({ status: 503, reason: "transient" });

      const accountId = partner.stored.accountIds[0] ?? "";
      const page = await listTransactions(
        new Request(`${ISSUER}/api/accounts/${accountId}/transactions`, {
          headers: bearer(partner.key),
        }),
        params({ id: accountId }),
      );
      expectRetryAfter(page);
      expect(await page.json()).toEqual({ status: 503, reason: "transient" });

      const sync = await syncAll(partner.key, []);
      expectRetryAfter(sync);
      expect(await sync.json()).toEqual({ status: 503, reason: "transient" });

      const key = await registerKey(
        new Request(`${ISSUER}/setup/key`, {
          method: "POST",
          headers: { Origin: ISSUER, "Content-Type": "application/json", Cookie: session },
          body: JSON.stringify({ publicKey: "x", csrf: "x" }),
        }),
      );
      expectRetryAfter(key);
      expect(await key.json()).toEqual({ error: "unavailable" });

      expect((await healthz()).status).toBe(503);
    } finally {
      await release();
    }
    // Nothing was spent: the code and the PIN still work once connections are free.
    expect((await handleTokenRequest(tokenRequest(client, code, verifier))).status).toBe(200);
    expect((await postPin(signIn)).headers.get("Location")).toBe("/");
  });
});

describe("syncs run on a budget of their own", () => {
  it("syncs holding every sync connection leave sign-in, token exchange and reads theirs; a sync beyond the queue is refused 503 transient", async () => {
    const partner = await connectedPartnerUser({ agoMs: 3 * 86_400_000 });
    const items = partner.stored.accountIds.map((accountId, index) => ({
      accountId,
      uid: partner.session.accounts[index]?.uid ?? "",
    }));
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const signIn = await requestSignIn();

    // Every sync's write waits on this lock, holding its sync-pool connection.
    const side = await SideConnection.open(scratch.url);
    await side.lock('LOCK TABLE "Transaction" IN SHARE MODE');
    const running = syncAll(partner.key, items);
    await side.waitForBlocked(1);
    // More requests at once than the request pool has connections: all served.
    const [pin, token, ...reads] = await Promise.all([
      postPin(signIn),
      handleTokenRequest(tokenRequest(client, code, verifier)),
      ...[1, 2, 3, 4].map(() =>
        listAccounts(
          new Request(`${ISSUER}/api/accounts`, { headers: bearer(partner.key) }),
          params(),
        ),
      ),
    ]);
    expect(pin?.status).toBe(303);
    expect(pin?.headers.get("Location")).toBe("/");
    expect(pin?.headers.getSetCookie().some((c) => c.startsWith(`${sessionCookieName()}=`))).toBe(
      true,
    );
    expect(token?.status).toBe(200);
    for (const read of reads) expect(read.status).toBe(200);

    // The one slot is taken; four syncs may wait for it (four per slot), the next is refused.
    // Queued only now: each waits at most SYNC_QUEUE_WAIT_MS from here, however slow the machine
    // was through the requests above.
    const queuedAt = performance.now();
    const waiting = [1, 2, 3, 4].map(async () => {
      const answer = await syncAll(partner.key, items);
      return { answer, waitedMs: performance.now() - queuedAt };
    });
    // The fifth is sent once the four are in the queue (each looks its key up first, so
    // requests sent together may join it in any order).
    await expect.poll(syncsWaitingForSlot, { timeout: SYNC_QUEUE_WAIT_MS / 2 }).toBe(4);
    const refused = await syncAll(partner.key, items);
    expectRetryAfter(refused, String(SYNC_RETRY_AFTER_SECONDS));
    expect(await refused.json()).toEqual({ status: 503, reason: "transient" });

    await side.unlock();
    await side.close();
    const first = await running;
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ accounts: items.length, failures: [] });
    // Each queued sync ran once the slot was free; on a machine so busy that the syncs before it
    // took longer than the queue's wait, it was refused only when that wait ran out, never at once.
    for (const { answer, waitedMs } of await Promise.all(waiting)) {
      if (answer.status === 200) continue;
      expect(answer.status).toBe(503);
      expect(waitedMs).toBeGreaterThanOrEqual(SYNC_QUEUE_WAIT_MS - 100);
    }
    expect(await syncDb().transaction.count()).toBeGreaterThan(0);
  });
});
