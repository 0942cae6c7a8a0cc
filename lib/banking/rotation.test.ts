import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { rawSetting, setSetting } from "../env";
import { sandboxUpstream } from "../upstream/sandbox";
import { partnerTenantOf, partnerWithRecipientKey, sandboxConsent } from "../../test/bank-data";
import { ISSUER, mintApiKey } from "../../test/oauth-fixtures";
import { renewConnection, storeConnection, storeHistory } from "./ingest";

/**
 * Bank data stored before a SECRET_KEY rotation is recognized during it
 * (docs/operations.md, "Rotating SECRET_KEY"): a renewed consent finds its
 * accounts again and a history fetched again stores no transaction twice.
 */

const OLD = `old-${randomBytes(24).toString("hex")}`;
const NEW = `new-${randomBytes(24).toString("hex")}`;
const previousSecret = rawSetting("SECRET_KEY");
const sandbox = sandboxUpstream({ baseUrl: ISSUER });
const BANK = { name: "Sandbox Nordbank DK", country: "DK" };

function setSecrets(current: string, previous?: string) {
  setSetting("SECRET_KEY", current);
  setSetting("SECRET_KEY_PREVIOUS", previous ?? "");
}
afterEach(() => setSecrets(previousSecret ?? OLD));

/** A consent of the same person at the same bank each time (the sandbox keys accounts by psuId). */
const consent = (psuId: string) => sandboxConsent({ bank: BANK, psuId });

async function storedRows(connectionId: string) {
  const accounts = await db().account.findMany({
    where: { connectionId },
    select: { id: true, identityHash: true, _count: { select: { transactions: true } } },
  });
  return {
    accountIds: accounts.map((account) => account.id).sort(),
    transactions: accounts.reduce((sum, account) => sum + account._count.transactions, 0),
    identityHashes: accounts.map((account) => account.identityHash).sort(),
  };
}

/** A connection and its history stored under OLD, then renewed and fetched again under `secrets`. */
async function renewAfterRotation(secrets: [string, string?]) {
  setSecrets(OLD);
  const { client, keys } = await partnerWithRecipientKey();
  const { user } = await mintApiKey(client);
  const tenant = await partnerTenantOf(client, user);
  const input = { tenantId: tenant.id, sealingKey: keys.publicKeyRawB64, upstream: sandbox };
  const psuId = randomBytes(8).toString("hex");
  const first = await storeConnection({ ...input, session: await consent(psuId) });
  await storeHistory({ ...input, accounts: first.accounts });
  const before = await storedRows(first.connectionId);
  expect(before.transactions).toBeGreaterThan(0);

  setSecrets(...secrets);
  const renewed = await renewConnection({
    ...input,
    session: await consent(psuId),
    connectionId: first.connectionId,
  });
  const history = await storeHistory({ ...input, accounts: renewed.accounts });
  return {
    before,
    after: await storedRows(first.connectionId),
    stored: history.transactions,
    input,
    renewed,
  };
}

describe("bank data across a SECRET_KEY rotation", () => {
  it("with SECRET_KEY_PREVIOUS set, a renewal keeps its accounts and the history is not stored twice", async () => {
    const { before, after, stored, input, renewed } = await renewAfterRotation([NEW, OLD]);
    expect(after.accountIds).toEqual(before.accountIds);
    expect(stored).toBe(0);
    expect(after.transactions).toBe(before.transactions);
    // What was recognized now carries the new secret's hashes: it stays recognized without the old one.
    expect(after.identityHashes).not.toEqual(before.identityHashes);
    setSecrets(NEW);
    const again = await storeHistory({ ...input, accounts: renewed.accounts });
    expect(again.transactions).toBe(0);
  });

  it("without it (the old secret gone), the same renewal cannot recognize them", async () => {
    const { before, after } = await renewAfterRotation([NEW]);
    expect(after.accountIds.length).toBeGreaterThan(before.accountIds.length);
  });

  it("a renewal under the same secret keeps its accounts (the baseline the rotation must match)", async () => {
    const { before, after, stored } = await renewAfterRotation([OLD]);
    expect(after.accountIds).toEqual(before.accountIds);
    expect(stored).toBe(0);
  });
});
