import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import { ACCOUNT_UIDS, startLoadBank, type LoadBank } from "@/scripts/load/bank";
import { partnerTenantOf, partnerWithRecipientKey } from "@/test/bank-data";
import { useScratchDatabase, type ScratchDatabase } from "@/test/db-pressure";
import { rateLimitedAnswer } from "@/test/fake-enable-banking";
import { ISSUER, mintApiKey } from "@/test/oauth-fixtures";
import { db } from "../db/client";
import { setSetting } from "../env";

/**
 * A sync through its route against a real HTTP bank (the Enable Banking
 * fake): one passing failure of the bank is retried inside the sync, which
 * then succeeds; a wait the bank asks for that the sync's deadline cannot
 * hold is answered at once (docs/sync-failures.md#retries).
 */

let scratch: ScratchDatabase;
let bank: LoadBank;
let key: string;
let accountId: string;
const uid = ACCOUNT_UIDS[0];
const params = (values: Record<string, string>) => ({ params: Promise.resolve(values) });

beforeAll(async () => {
  bank = await startLoadBank();
  scratch = await useScratchDatabase("retries", bank.settings);
  const { client, keys } = await partnerWithRecipientKey();
  const minted = await mintApiKey(client);
  key = minted.key;
  const tenant = await partnerTenantOf(client, minted.user);
  accountId = (await bank.connect(tenant.id, keys.publicKeyRawB64)).accountIds[0] ?? "";
});

afterAll(async () => {
  setSetting("SYNC_DEADLINE_SECONDS", "");
  await scratch.release();
  await bank.close();
});

beforeEach(() => {
  bank.fake.script.length = 0;
  bank.fake.requests.length = 0;
  setSetting("SYNC_DEADLINE_SECONDS", "");
});

const sync = () =>
  accountSyncRoute.POST(
    new Request(`${ISSUER}/api/accounts/${accountId}/sync`, {
      method: "POST",
      headers: { "X-Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ uid }),
    }),
    params({ id: accountId }),
  );

const lastSyncedAt = async () =>
  (
    await db().account.findUniqueOrThrow({
      where: { id: accountId },
      include: { connection: true },
    })
  ).connection.lastSyncedAt;

describe("a sync meets a failure of the bank", () => {
  it("one 502: retried inside the sync, which succeeds", async () => {
    const before = await lastSyncedAt();
    bank.fake.script.push({ status: 502, rawBody: "<html>Bad gateway</html>" });
    const response = await sync();
    expect(response.status).toBe(200);
    expect(await lastSyncedAt()).not.toEqual(before);
    // The failed request and its retry, besides the sync's other reads.
    expect(bank.fake.script).toHaveLength(0);
  });

  it("429 with Retry-After: 1: the sync waits and succeeds", async () => {
    bank.fake.script.push(rateLimitedAnswer("1"));
    const started = performance.now();
    const response = await sync();
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it("a Retry-After longer than the sync's deadline: 429 rate_limited at once, Retry-After passed on", async () => {
    setSetting("SYNC_DEADLINE_SECONDS", "5");
    bank.fake.script.push(rateLimitedAnswer("8"));
    const started = performance.now();
    const response = await sync();
    expect(response.status).toBe(429);
    expect(response.headers.get("Retry-After")).toBe("8");
    expect(await response.json()).toEqual({
      status: 429,
      reason: "rate_limited",
      bankErrorCode: "ASPSP_RATE_LIMIT_EXCEEDED",
    });
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
