import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "../../../test/fake-enable-banking";
import { UpstreamError, type Upstream } from "../types";
import { MAX_RESPONSE_BYTES, RETRY_POLICY } from "./client";
import { enableBankingUpstream } from "./index";

/**
 * The connector reads at most MAX_RESPONSE_BYTES of an answer, from a real
 * HTTP server: a bigger one is refused (bank_error) while it streams in,
 * and the rest of it is never read.
 */

const APPLICATION_ID = "app-limits";
const keys = applicationKeyPair();
let fake: FakeEnableBanking;
let upstream: Upstream;

/** A valid transactions page of about `megabytes` MB. */
function hugePage(megabytes: number): string {
  const transaction = JSON.stringify({
    entry_reference: "E",
    transaction_amount: { amount: "1.00", currency: "EUR" },
    credit_debit_indicator: "DBIT",
    status: "BOOK",
    booking_date: "2026-11-01",
    remittance_information: ["x".repeat(900)],
  });
  const count = Math.ceil((megabytes * 1024 * 1024) / transaction.length);
  return `{"transactions":[${Array.from({ length: count }, () => transaction).join(",")}]}`;
}

beforeAll(async () => {
  fake = await startFakeEnableBanking({ applicationId: APPLICATION_ID, publicKey: keys.publicKey });
  upstream = enableBankingUpstream({
    apiUrl: fake.url,
    applicationId: APPLICATION_ID,
    privateKey: keys.privateKey,
  });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.script.length = 0;
  fake.abandoned = 0;
  fake.sentBytes.length = 0;
});

async function failureOf(run: () => Promise<unknown>): Promise<UpstreamError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof UpstreamError) return error;
    throw error;
  }
  throw new Error("expected an UpstreamError");
}

const readPage = () => upstream.getTransactions("acc-1", { dateFrom: "2026-01-01" });

describe("the size of an Enable Banking answer", () => {
  it("a 50 MB answer streamed without a length is refused as bank_error, its rest unread", async () => {
    fake.script.push({ status: 200, rawBody: hugePage(50) });
    const error = await failureOf(readPage);
    expect(error.reason).toBe("bank_error");
    expect(error.message).toContain(`more than ${MAX_RESPONSE_BYTES} bytes`);
    // The connection was dropped: most of the 50 MB was never even sent.
    await expect.poll(() => fake.abandoned).toBe(1);
    expect(fake.sentBytes[0]).toBeLessThan(25 * 1024 * 1024);
  });

  it("an answer that declares a length above the cap is refused before its body is read", async () => {
    const body = hugePage(12);
    fake.script.push({
      status: 200,
      rawBody: body,
      headers: { "content-length": String(Buffer.byteLength(body)) },
    });
    const error = await failureOf(readPage);
    expect(error.reason).toBe("bank_error");
    await expect.poll(() => fake.abandoned).toBe(1);
  });

  it("an oversized error page still maps by its status", async () => {
    const page = { status: 503, rawBody: "<html>".padEnd(MAX_RESPONSE_BYTES + 10, "x") };
    // Every try answers it (a 503 is retried).
    for (let i = 0; i < RETRY_POLICY.attempts; i += 1) fake.script.push(page);
    expect((await failureOf(readPage)).reason).toBe("transient");
  });

  it("an answer just under the cap is read in full", async () => {
    fake.script.push({ status: 200, rawBody: hugePage(7) });
    const page = await readPage();
    expect(page.transactions.length).toBeGreaterThan(6000);
    expect(fake.abandoned).toBe(0);
  });
});
