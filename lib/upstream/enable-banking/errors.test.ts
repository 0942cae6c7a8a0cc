import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "../../../test/fake-enable-banking";
import { UpstreamError, type UpstreamFailureReason } from "../types";
import { RETRY_POLICY } from "./client";
import { ENABLE_BANKING_FAILURES, parseRetryAfter } from "./errors";
import { enableBankingUpstream, type EnableBankingOptions } from "./index";

const APPLICATION_ID = "app-errors";
const ACCOUNT_UID = "acc-7c1d-secret-uid";
const keys = applicationKeyPair();
// Whole seconds, so that an HTTP date (second resolution) maps to exact seconds.
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
let fake: FakeEnableBanking;

beforeAll(async () => {
  fake = await startFakeEnableBanking({ applicationId: APPLICATION_ID, publicKey: keys.publicKey });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.script.length = 0;
  fake.delayMs = 0;
  fake.balances = { [ACCOUNT_UID]: [] };
});

const connector = (overrides: Partial<EnableBankingOptions> = {}) =>
  enableBankingUpstream({
    apiUrl: fake.url,
    applicationId: APPLICATION_ID,
    privateKey: keys.privateKey,
    now: () => NOW,
    ...overrides,
  });

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => new Error("expected the call to fail"),
    (caught: unknown) => caught,
  );
  if (!(error instanceof UpstreamError)) throw error;
  return error;
}

/** The error a balances read fails with when Enable Banking answers `answer`. */
function balancesFailingWith(answer: FakeEnableBanking["script"][number]) {
  // The same answer to every try: what a failure maps to once retrying has not helped.
  for (let i = 0; i < RETRY_POLICY.attempts; i += 1) fake.script.push(answer);
  return failureOf(connector().getBalances(ACCOUNT_UID));
}

const ebError = (status: number, error?: string) => ({
  code: status,
  message: `Something about account ${ACCOUNT_UID}`,
  ...(error && { error }),
  detail: { iban: "DK5000400440116243" },
});

describe("Enable Banking error codes map to sync reasons", () => {
  const rows: [status: number, code: string, reason: UpstreamFailureReason, httpStatus: number][] =
    [
      [429, "ASPSP_RATE_LIMIT_EXCEEDED", "rate_limited", 429],
      [422, "ASPSP_RATE_LIMIT_EXCEEDED", "rate_limited", 429],
      [401, "EXPIRED_SESSION", "reconnect_needed", 409],
      [400, "CLOSED_SESSION", "reconnect_needed", 409],
      [404, "SESSION_DOES_NOT_EXIST", "reconnect_needed", 409],
      [400, "WRONG_SESSION_STATUS", "reconnect_needed", 409],
      [400, "ASPSP_PSU_ACTION_REQUIRED", "reconnect_needed", 409],
      [401, "REVOKED_SESSION", "consent_withdrawn", 409],
      [400, "PSU_HEADER_NOT_PROVIDED", "psu_headers_missing", 409],
      [400, "ASPSP_ERROR", "bank_error", 502],
      [500, "ASPSP_ERROR", "bank_error", 502],
      [504, "ASPSP_TIMEOUT", "transient", 503],
      [401, "UNAUTHORIZED_ACCESS", "partner_app_inactive", 503],
      [403, "ACCESS_DENIED", "partner_app_inactive", 503],
      [401, "AUTHORIZATION_NOT_PROVIDED", "partner_app_inactive", 503],
      [403, "UNAUTHORIZED_IP", "partner_app_inactive", 503],
      [400, "REDIRECT_URI_NOT_ALLOWED", "partner_app_inactive", 503],
      [400, "ASPSP_ACCOUNT_NOT_ACCESSIBLE", "reconnect_needed", 409],
      [400, "NO_ACCOUNTS_ADDED", "reconnect_needed", 409],
      [400, "PSU_HEADER_INVALID", "psu_present_required", 409],
      [404, "ACCOUNT_DOES_NOT_EXIST", "bank_error", 502],
      [422, "WRONG_REQUEST_PARAMETERS", "bank_error", 502],
      [400, "DATE_FROM_IN_FUTURE", "bank_error", 502],
      // A code the reference does not (yet) list: the bank's error, its code kept.
      [400, "SOMETHING_NEW", "bank_error", 502],
      [422, "A_FUTURE_CODE", "bank_error", 502],
      [400, "WRONG_TRANSACTIONS_PERIOD", "bank_error", 502],
    ];

  it.each(rows)("%i %s → %s", async (status, code, reason, httpStatus) => {
    const error = await balancesFailingWith({ status, body: ebError(status, code) });
    expect(error.reason).toBe(reason);
    expect(error.status).toBe(httpStatus);
    expect(error.bankErrorCode).toBe(code);
    expect(error.retryAfterSeconds).toBeNull();
    expect(error.message).toBe(
      `Enable Banking GET /accounts/{uid}/balances answered ${status} ${code}`,
    );
  });
});

describe("the table knows only codes Enable Banking documents", () => {
  // The `ErrorCode` list of Enable Banking's API reference (1.0.0).
  const documented = [
    "ACCESS_DENIED",
    "ACCOUNT_DOES_NOT_EXIST",
    "ALREADY_AUTHORIZED",
    "ASPSP_ACCOUNT_NOT_ACCESSIBLE",
    "ASPSP_ERROR",
    "ASPSP_PAYMENT_NOT_ACCESSIBLE",
    "ASPSP_PSU_ACTION_REQUIRED",
    "ASPSP_RATE_LIMIT_EXCEEDED",
    "ASPSP_TIMEOUT",
    "AUTHORIZATION_NOT_PROVIDED",
    "CLOSED_SESSION",
    "DATE_FROM_IN_FUTURE",
    "DATE_TO_WITHOUT_DATE_FROM",
    "EXPIRED_AUTHORIZATION_CODE",
    "EXPIRED_SESSION",
    "INVALID_ACCOUNT_ID",
    "INVALID_HOST",
    "INVALID_PAYMENT",
    "NO_ACCOUNTS_ADDED",
    "PAYMENT_LIMIT_EXCEEDED",
    "PAYMENT_NOT_AUTHORIZED",
    "PAYMENT_NOT_FINALIZED",
    "PAYMENT_NOT_FOUND",
    "PAYMENT_SUBMISSION_NOT_DEFERRED",
    "PAYMENT_SUBMISSION_NOT_SUPPORTED",
    "PSU_HEADER_INVALID",
    "PSU_HEADER_NOT_PROVIDED",
    "REDIRECT_URI_NOT_ALLOWED",
    "REVOKED_SESSION",
    "SESSION_DOES_NOT_EXIST",
    "TRANSACTION_DOES_NOT_EXIST",
    "UNAUTHORIZED_ACCESS",
    "UNAUTHORIZED_IP",
    "UNTRUSTED_PAYMENT_PARTY",
    "WEBHOOK_URI_NOT_ALLOWED",
    "WRONG_ASPSP_PROVIDED",
    "WRONG_AUTHORIZATION_CODE",
    "WRONG_CONTINUATION_KEY",
    "WRONG_CREDENTIALS_PROVIDED",
    "WRONG_DATE_INTERVAL",
    "WRONG_REQUEST_PARAMETERS",
    "WRONG_SESSION_STATUS",
    "WRONG_TRANSACTIONS_PERIOD",
  ];

  it("maps every documented code, and no invented one", () => {
    expect(Object.keys(ENABLE_BANKING_FAILURES.byCode).sort()).toEqual([...documented].sort());
  });
});

describe("HTTP statuses without a known code map to sync reasons", () => {
  const rows: [status: number, body: unknown, reason: UpstreamFailureReason][] = [
    [401, ebError(401), "partner_app_inactive"],
    [403, ebError(403, "SOMETHING_NEW"), "partner_app_inactive"],
    [408, undefined, "transient"],
    [429, undefined, "rate_limited"],
    [400, ebError(400), "bank_error"],
    [404, "<html>not found</html>", "bank_error"],
    [500, ebError(500), "transient"],
    [502, "<html>bad gateway</html>", "transient"],
    [503, undefined, "transient"],
  ];

  it.each(rows)("%i → %s", async (status, body, reason) => {
    const error = await balancesFailingWith(
      typeof body === "string" ? { status, rawBody: body } : { status, body },
    );
    expect(error.reason).toBe(reason);
    const code = (body as { error?: string } | undefined)?.error ?? null;
    expect(error.bankErrorCode).toBe(code);
  });
});

describe("Retry-After", () => {
  it("in seconds rides on rate_limited", async () => {
    const error = await balancesFailingWith({
      status: 429,
      body: ebError(429, "ASPSP_RATE_LIMIT_EXCEEDED"),
      headers: { "Retry-After": "120" },
    });
    expect(error.reason).toBe("rate_limited");
    expect(error.retryAfterSeconds).toBe(120);
  });

  it("as an HTTP date becomes the seconds until then", async () => {
    const error = await balancesFailingWith({
      status: 422,
      body: ebError(422, "ASPSP_RATE_LIMIT_EXCEEDED"),
      headers: { "Retry-After": new Date(NOW.getTime() + 3_600_000).toUTCString() },
    });
    expect(error.reason).toBe("rate_limited");
    expect(error.retryAfterSeconds).toBe(3600);
  });

  it("rides on a transient 503 too", async () => {
    const error = await balancesFailingWith({ status: 503, headers: { "Retry-After": "30" } });
    expect(error.reason).toBe("transient");
    expect(error.retryAfterSeconds).toBe(30);
  });

  it("is parsed as seconds or an HTTP date, never negative, null when unreadable", () => {
    expect(parseRetryAfter("0", NOW)).toBe(0);
    expect(parseRetryAfter(" 45 ", NOW)).toBe(45);
    expect(parseRetryAfter(new Date(NOW.getTime() + 90_000).toUTCString(), NOW)).toBe(90);
    expect(parseRetryAfter(new Date(NOW.getTime() - 90_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter("-5", NOW)).toBeNull();
    expect(parseRetryAfter("1.5", NOW)).toBeNull();
    expect(parseRetryAfter("soon", NOW)).toBeNull();
    expect(parseRetryAfter(null, NOW)).toBeNull();
  });
});

describe("failures without an answer are transient", () => {
  it("a request that outlives the timeout", async () => {
    fake.delayMs = 1_000;
    const error = await failureOf(connector({ timeoutMs: 100 }).getBalances(ACCOUNT_UID));
    expect(error.reason).toBe("transient");
    expect(error.status).toBe(503);
    expect(error.message).toBe(
      "Enable Banking GET /accounts/{uid}/balances did not answer within 100 ms",
    );
  });

  it("a refused connection", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failureOf(
      connector({ apiUrl: `http://127.0.0.1:${port}` }).getBalances(ACCOUNT_UID),
    );
    expect(error.reason).toBe("transient");
    expect(error.message).toBe("Enable Banking GET /accounts/{uid}/balances could not be reached");
  });
});

describe("a 2xx body that is not Enable Banking's JSON is a bank error", () => {
  it("not JSON", async () => {
    const error = await balancesFailingWith({ status: 200, rawBody: "<html>maintenance</html>" });
    expect(error.reason).toBe("bank_error");
    expect(error.status).toBe(502);
    expect(error.message).toBe(
      "Enable Banking GET /accounts/{uid}/balances answered an unexpected body",
    );
  });

  it("empty", async () => {
    const error = await balancesFailingWith({ status: 200 });
    expect(error.reason).toBe("bank_error");
  });

  it("a field of the wrong kind, named by its path, not its value", async () => {
    const error = await balancesFailingWith({
      status: 200,
      body: { balances: [{ balance_amount: { amount: "12,50 kr", currency: "DKK" } }] },
    });
    expect(error.reason).toBe("bank_error");
    expect(error.message).toBe(
      "Enable Banking GET /accounts/{uid}/balances answered an unexpected body (at balances.0.balance_amount.amount)",
    );
    expect(error.message).not.toContain("12,50");
  });
});

describe("error messages carry no bank data", () => {
  it("neither the account uid nor Enable Banking's message or detail", async () => {
    const error = await balancesFailingWith({ status: 400, body: ebError(400, "ASPSP_ERROR") });
    const everything = `${error.message} ${JSON.stringify(error)} ${String(error.cause)}`;
    expect(everything).not.toContain(ACCOUNT_UID);
    expect(everything).not.toContain("DK5000400440116243");
    expect(everything).not.toContain("Something about");
  });
});
