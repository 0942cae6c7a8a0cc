import { performance } from "node:perf_hooks";
import { SyncDeadline } from "../../lib/banking/budget";
import { syncAccount } from "../../lib/banking/sync";
import { generateKeyPair, sealJson } from "../../lib/crypto/envelope";
import { disconnectDb } from "../../lib/db/client";
import { connectShop, forgetHistory } from "./shop";
import { setSetting } from "../../lib/env";
import { createTestDatabase } from "../../test/test-database";

/**
 * Benchmark (prints, never asserts): envelope sealing throughput, and the
 * time to sync one account with about 10 000 new transactions from the
 * sandbox (a shop's account at Sandbox Handelsbank DK, two years unsynced),
 * on a scratch database of its own.
 *
 *   npm run bench:sync
 */

const SEAL_COUNT = 5_000;

function sealingThroughput(publicKey: string): number {
  const payload = {
    amount: "1234.56",
    creditorName: "Netto",
    creditorIban: "DK5000400440116243",
    remittanceInformation: "Dankort-køb Netto 4123",
    merchantCategoryCode: "5411",
    balanceAfter: "20345.12",
    balanceAfterCurrency: "DKK",
    rawJson: JSON.stringify({ entry_reference: "SBX20261121001abcdef", status: "BOOK" }),
  };
  for (let i = 0; i < 200; i += 1) sealJson(publicKey, payload); // warm-up
  const started = performance.now();
  for (let i = 0; i < SEAL_COUNT; i += 1) sealJson(publicKey, payload);
  return SEAL_COUNT / ((performance.now() - started) / 1000);
}

async function main() {
  const database = await createTestDatabase("bench");
  setSetting("DATABASE_URL", database.url);
  try {
    const keys = generateKeyPair();
    const perSecond = sealingThroughput(keys.publicKeyRawB64);

    const { tenantId, session, stored } = await connectShop(keys.publicKeyRawB64);
    const accountId = stored.accountIds[0] ?? "";
    const uid = session.accounts[0]?.uid ?? "";
    await forgetHistory(stored);
    const started = performance.now();
    // What is measured is the sync's speed, not its deadline (docs/capacity.md).
    const deadline = new SyncDeadline(600_000);
    const outcome = await syncAccount({ tenantId, accountId, uid, deadline });
    const seconds = (performance.now() - started) / 1000;
    if (!outcome?.ok) throw new Error(`sync failed: ${JSON.stringify(outcome)}`);

    console.table([
      { measurement: "envelope sealing", value: `${Math.round(perSecond)} envelopes/s` },
      {
        measurement: "sync of one account",
        value: `${outcome.newTransactions} new transactions in ${seconds.toFixed(2)} s`,
      },
      {
        measurement: "sync rate",
        value: `${Math.round(outcome.newTransactions / seconds)} transactions/s`,
      },
    ]);
  } finally {
    await disconnectDb();
    await database.release();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
