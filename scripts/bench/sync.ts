import { performance } from "node:perf_hooks";
import { SyncDeadline } from "../../lib/banking/budget";
import { syncAccount } from "../../lib/banking/sync";
import { generateKeyPair, sealJson, toPlaintext } from "../../lib/crypto/envelope";
import { sealAll, sealPoolSize, stopSealPool } from "../../lib/crypto/seal-pool";
import { disconnectDb } from "../../lib/db/client";
import { connectShop, forgetHistory } from "./shop";
import { setSetting } from "../../lib/env";
import { createTestDatabase } from "../../test/test-database";

/**
 * Benchmark (prints, never asserts): envelope sealing throughput on the main
 * thread and in the sealing pool (and the pool's cost of moving text to and
 * from its workers), the first storing of a shop's account at Sandbox
 * Handelsbank DK (about 11 000 transactions), and a sync of one account with
 * about 10 000 new transactions (the same account, two years unsynced), on a
 * scratch database of its own.
 *
 *   npm run bench:sync
 */

const SEAL_COUNT = 5_000;

const PAYLOAD = {
  amount: "1234.56",
  creditorName: "Netto",
  creditorIban: "DK5000400440116243",
  remittanceInformation: "Dankort-køb Netto 4123",
  merchantCategoryCode: "5411",
  balanceAfter: "20345.12",
  balanceAfterCurrency: "DKK",
  rawJson: JSON.stringify({ entry_reference: "SBX20261121001abcdef", status: "BOOK" }),
};

function sealingThroughput(publicKey: string): number {
  for (let i = 0; i < 200; i += 1) sealJson(publicKey, PAYLOAD); // warm-up
  const started = performance.now();
  for (let i = 0; i < SEAL_COUNT; i += 1) sealJson(publicKey, PAYLOAD);
  return SEAL_COUNT / ((performance.now() - started) / 1000);
}

async function poolThroughput(publicKey: string): Promise<number> {
  const plaintexts = Array.from({ length: SEAL_COUNT }, () => toPlaintext(PAYLOAD));
  await sealAll(publicKey, plaintexts.slice(0, 1_000)); // starts the workers
  const started = performance.now();
  await sealAll(publicKey, plaintexts);
  return SEAL_COUNT / ((performance.now() - started) / 1000);
}

/**
 * What moving the text costs: a structured clone of the plaintexts to a
 * worker and of the envelopes back, measured as a worker that echoes.
 */
async function transferMsPerThousand(): Promise<number> {
  const { Worker } = await import("node:worker_threads");
  const worker = new Worker(
    'require("node:worker_threads").parentPort.on("message", (m) => require("node:worker_threads").parentPort.postMessage(m.map((p) => Buffer.from(p).toString("base64") + "x".repeat(0))))',
    { eval: true },
  );
  const plaintexts = Array.from({ length: 1_000 }, () => toPlaintext(PAYLOAD));
  const once = () =>
    new Promise<void>((resolve) => {
      worker.once("message", () => resolve());
      worker.postMessage(plaintexts);
    });
  for (let i = 0; i < 5; i += 1) await once();
  const rounds = 20;
  const started = performance.now();
  for (let i = 0; i < rounds; i += 1) await once();
  await worker.terminate();
  return (performance.now() - started) / rounds;
}

async function main() {
  const database = await createTestDatabase("bench");
  setSetting("DATABASE_URL", database.url);
  try {
    const keys = generateKeyPair();
    const perSecond = sealingThroughput(keys.publicKeyRawB64);
    const poolPerSecond = await poolThroughput(keys.publicKeyRawB64);
    const transferMs = await transferMsPerThousand();

    const ingestStarted = performance.now();
    const { tenantId, session, stored } = await connectShop(keys.publicKeyRawB64);
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
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
      {
        measurement: "envelope sealing, main thread",
        value: `${Math.round(perSecond)} envelopes/s`,
      },
      {
        measurement: `envelope sealing, pool of ${sealPoolSize()} worker(s)`,
        value: `${Math.round(poolPerSecond)} envelopes/s (${(poolPerSecond / perSecond).toFixed(2)} × main thread)`,
      },
      {
        measurement: "moving 1 000 plaintexts to a worker and back",
        value: `${transferMs.toFixed(1)} ms (sealing them: ${((1000 / perSecond) * 1000).toFixed(0)} ms on one thread)`,
      },
      {
        measurement: "first storing of the shop's account (ingest)",
        value: `${stored.transactions} transactions in ${ingestSeconds.toFixed(2)} s, ${Math.round(stored.transactions / ingestSeconds)} transactions/s`,
      },
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
    await stopSealPool();
    await disconnectDb();
    await database.release();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
