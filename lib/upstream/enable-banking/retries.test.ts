import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  FAKE_AUTHORIZATION_CODE,
  rateLimitedAnswer,
  startFakeEnableBanking,
  type FakeEnableBanking,
  type ScriptedAnswer,
  applicationKeyPair,
} from "../../../test/fake-enable-banking";
import { SyncDeadline, SyncDeadlineError } from "../../banking/budget";
import { UpstreamError } from "../types";
import { RETRY_POLICY } from "./client";
import { enableBankingUpstream, type EnableBankingOptions } from "./index";

/**
 * Retries against a real HTTP server (docs/sync-failures.md#retries): a
 * read or a session's end is sent again after 429 with `Retry-After`, 5xx,
 * a timeout or a dropped connection, within the caller's deadline; nothing
 * else is.
 */

const APPLICATION_ID = "app-retries";
const UID = "acc-retry";
const keys = applicationKeyPair();
const PAGE = {
  transactions: [
    {
      entry_reference: "E1",
      transaction_amount: { amount: "4.20", currency: "EUR" },
      credit_debit_indicator: "DBIT",
      status: "BOOK",
      booking_date: "2026-11-20",
    },
  ],
  continuation_key: null,
};
let fake: FakeEnableBanking;

beforeAll(async () => {
  fake = await startFakeEnableBanking({ applicationId: APPLICATION_ID, publicKey: keys.publicKey });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.script.length = 0;
  fake.closedSessions.clear();
  fake.balances = { [UID]: [] };
  fake.transactionPages = { [UID]: [PAGE] };
  fake.session = {
    session_id: "sess-r",
    aspsp: { name: "Nordea", country: "FI" },
    psu_type: "personal",
    access: { valid_until: "2027-05-20T10:00:00+00:00" },
    accounts: [],
  };
});

const connector = (overrides: Partial<EnableBankingOptions> = {}) =>
  enableBankingUpstream({
    apiUrl: fake.url,
    applicationId: APPLICATION_ID,
    privateKey: keys.privateKey,
    ...overrides,
  });

/** A sync's read of the account's transactions, under a sync deadline of `deadlineMs`. */
function syncRead(deadlineMs = 30_000, overrides: Partial<EnableBankingOptions> = {}) {
  const deadline = new SyncDeadline(deadlineMs);
  return connector(overrides).getTransactions(
    UID,
    { dateFrom: "2026-11-01" },
    { signal: deadline.signal },
  );
}

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => new Error("expected the call to fail"),
    (caught: unknown) => caught,
  );
  if (!(error instanceof UpstreamError)) throw error;
  return error;
}

const requestsTo = (method: string, path: string) =>
  fake.requests.filter((request) => request.method === method && request.path === path).length;
const transactionReads = () => requestsTo("GET", `/accounts/${UID}/transactions`);

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

const ebError = (status: number, error?: string): ScriptedAnswer => ({
  status,
  body: { code: status, message: "Something went wrong", ...(error && { error }) },
});

describe("a failure that passes is retried, and the read succeeds", () => {
  it("one 502, then the page: the sync's read gets the page in two requests", async () => {
    fake.script.push({ status: 502, rawBody: "<html>Bad gateway</html>" });
    const page = await syncRead();
    expect(page.transactions.map((t) => t.entryReference)).toEqual(["E1"]);
    expect(transactionReads()).toBe(2);
  });

  it.each([500, 503, 504])("one %i, then the page", async (status) => {
    fake.script.push({ status });
    expect((await syncRead()).transactions).toHaveLength(1);
    expect(transactionReads()).toBe(2);
  });

  it("a timeout, then the page: the late answer is dropped and the next one read", async () => {
    fake.script.push({ status: 200, body: { transactions: [] }, delayMs: 2_000 });
    const page = await syncRead(30_000, { timeoutMs: 300 });
    expect(page.transactions).toHaveLength(1);
    expect(transactionReads()).toBe(2);
  });

  it("a connection dropped without an answer, then the page", async () => {
    fake.script.push({ status: 200, reset: true });
    expect((await syncRead()).transactions).toHaveLength(1);
    expect(transactionReads()).toBe(2);
  });

  it("429 with Retry-After: 1, then the page: the read waits the second and succeeds", async () => {
    fake.script.push(rateLimitedAnswer("1"));
    const { result, ms } = await timed(() => syncRead());
    expect(result.transactions).toHaveLength(1);
    expect(transactionReads()).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(1_000);
  });

  it("Retry-After as an HTTP date is waited for too", async () => {
    fake.script.push({
      status: 503,
      headers: { "Retry-After": new Date(Date.now() + 2_000).toUTCString() },
    });
    const { result, ms } = await timed(() => syncRead());
    expect(result.transactions).toHaveLength(1);
    expect(ms).toBeGreaterThanOrEqual(900);
  });

  it("balances are read again the same way", async () => {
    fake.script.push({ status: 503 });
    const deadline = new SyncDeadline(30_000);
    await expect(connector().getBalances(UID, { signal: deadline.signal })).resolves.toEqual([]);
    expect(requestsTo("GET", `/accounts/${UID}/balances`)).toBe(2);
  });

  it("ending a session is sent again: ending it twice leaves it ended", async () => {
    fake.script.push({ status: 503 });
    await connector().closeSession("sess-r");
    expect(requestsTo("DELETE", "/sessions/sess-r")).toBe(2);
    expect([...fake.closedSessions]).toEqual(["sess-r"]);
  });
});

describe("a failure that persists is answered as before, after a bounded number of tries", () => {
  it(`three 503s: transient, after ${RETRY_POLICY.attempts} requests`, async () => {
    for (let i = 0; i < 5; i += 1) fake.script.push({ status: 503 });
    const error = await failureOf(syncRead());
    expect(error.reason).toBe("transient");
    expect(error.status).toBe(503);
    expect(transactionReads()).toBe(RETRY_POLICY.attempts);
  });

  it("three 502 ASPSP_ERROR: bank_error with the bank's code", async () => {
    for (let i = 0; i < 3; i += 1) fake.script.push(ebError(502, "ASPSP_ERROR"));
    const error = await failureOf(syncRead());
    expect(error.reason).toBe("bank_error");
    expect(error.bankErrorCode).toBe("ASPSP_ERROR");
    expect(transactionReads()).toBe(3);
  });

  it("three timeouts: transient, naming the timeout", async () => {
    for (let i = 0; i < 3; i += 1) fake.script.push({ status: 200, delayMs: 1_000 });
    const error = await failureOf(syncRead(30_000, { timeoutMs: 150 }));
    expect(error.reason).toBe("transient");
    expect(error.message).toBe(
      "Enable Banking GET /accounts/{uid}/transactions did not answer within 150 ms",
    );
    expect(transactionReads()).toBe(3);
  });
});

describe("the deadline bounds every wait", () => {
  it("a Retry-After past the deadline: rate_limited at once, its Retry-After kept", async () => {
    fake.script.push(rateLimitedAnswer("5"));
    const { result: error, ms } = await timed(() => failureOf(syncRead(3_000)));
    expect(error.reason).toBe("rate_limited");
    expect(error.status).toBe(429);
    expect(error.bankErrorCode).toBe("ASPSP_RATE_LIMIT_EXCEEDED");
    expect(error.retryAfterSeconds).toBe(5);
    expect(transactionReads()).toBe(1);
    expect(ms).toBeLessThan(1_000);
  });

  it("the same Retry-After within a longer deadline is waited for", async () => {
    fake.script.push(rateLimitedAnswer("2"));
    const { result, ms } = await timed(() => syncRead(10_000));
    expect(result.transactions).toHaveLength(1);
    expect(ms).toBeGreaterThanOrEqual(2_000);
  });

  it("a Retry-After beyond the longest wait, with no deadline: rate_limited at once", async () => {
    fake.script.push(rateLimitedAnswer("120"));
    const error = await failureOf(connector().getBalances(UID));
    expect(error.reason).toBe("rate_limited");
    expect(error.retryAfterSeconds).toBe(120);
    expect(requestsTo("GET", `/accounts/${UID}/balances`)).toBe(1);
  });

  it("a 429 that does not say when: not retried (the bank's limit of reads is spent)", async () => {
    fake.script.push(rateLimitedAnswer());
    const error = await failureOf(syncRead());
    expect(error.reason).toBe("rate_limited");
    expect(error.retryAfterSeconds).toBeNull();
    expect(transactionReads()).toBe(1);
  });

  it("less time left than the backoff: the bank's failure at once, not the deadline's", async () => {
    fake.script.push({ status: 503 });
    const error = await failureOf(syncRead(300));
    expect(error.reason).toBe("transient");
    expect(transactionReads()).toBe(1);
  });

  it("a deadline that passes during an attempt ends it with the deadline's own error", async () => {
    fake.script.push({ status: 200, delayMs: 2_000 });
    const deadline = new SyncDeadline(300);
    await expect(
      connector().getTransactions(UID, { dateFrom: "2026-11-01" }, { signal: deadline.signal }),
    ).rejects.toBeInstanceOf(SyncDeadlineError);
    expect(transactionReads()).toBe(1);
  });
});

describe("what is never retried", () => {
  it("POST /auth: one request, even on a 503", async () => {
    fake.script.push({ status: 503 }, { status: 503 });
    const error = await failureOf(
      connector().startAuthorization({
        aspsp: { name: "Nordea", country: "FI" },
        psuType: "personal",
        redirectUrl: "https://example.test/banks/callback",
        state: "s",
        validUntil: new Date("2027-01-01T00:00:00Z"),
        language: "en",
      }),
    );
    expect(error.reason).toBe("transient");
    expect(requestsTo("POST", "/auth")).toBe(1);
  });

  it("POST /sessions: one request, even after a timeout", async () => {
    fake.script.push({ status: 200, delayMs: 1_000 });
    const error = await failureOf(
      connector({ timeoutMs: 150 }).completeAuthorization({ code: FAKE_AUTHORIZATION_CODE }),
    );
    expect(error.reason).toBe("transient");
    expect(requestsTo("POST", "/sessions")).toBe(1);
  });

  it.each([
    [401, "UNAUTHORIZED_ACCESS", "partner_app_inactive"],
    [403, "ACCESS_DENIED", "partner_app_inactive"],
    [422, "WRONG_REQUEST_PARAMETERS", "bank_error"],
    [400, "EXPIRED_SESSION", "reconnect_needed"],
    [408, undefined, "transient"],
  ] as const)("a %i %s: one request, %s as before", async (status, code, reason) => {
    fake.script.push(ebError(status, code), ebError(status, code));
    const error = await failureOf(syncRead());
    expect(error.reason).toBe(reason);
    expect(transactionReads()).toBe(1);
  });
});
