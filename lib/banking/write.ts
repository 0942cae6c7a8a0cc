import { sealAll } from "../crypto/seal-pool";
import type { Prisma } from "../db/client";
import type { UpstreamTransaction } from "../upstream/types";
import { inCpuSlices, SyncDeadlineError, type SyncDeadline } from "./budget";
import { transactionRow, type TransactionRow } from "./sealing";

/**
 * Sealing and writing many transactions fast (docs/ingest.md):
 *
 * - the plaintext columns, keyed hashes and JSON texts are made on the main
 *   thread, in CPU slices with the event loop free in between;
 * - the envelopes are sealed in the sealing pool's worker threads, one per
 *   core, in chunks of WRITE_CHUNK, each queued as soon as its rows are
 *   fetched (the workers seal while later pages arrive);
 * - each chunk is written by one INSERT … SELECT FROM unnest(…) with eleven
 *   array parameters however many rows it has (a multi-row VALUES list
 *   would need eleven parameters per row and a statement text per size),
 *   while the workers seal the next chunks.
 *
 * Duplicates (by the account's unique dedupe hash) are skipped, so
 * concurrent syncs of one account never store a transaction twice.
 */

/** Rows per INSERT statement and per batch of envelopes waited for. */
export const WRITE_CHUNK = 500;

/** Up to WRITE_CHUNK rows and their envelopes, once the pool has sealed them. */
export interface SealingChunk {
  rows: TransactionRow["columns"][];
  envelopes: Promise<string[]>;
}

/**
 * Seals transactions as they arrive (page by page from the upstream): the
 * rows are prepared on the main thread and every full chunk goes to the
 * sealing pool at once, so the workers seal while later pages are fetched.
 */
export class TransactionSealer {
  private readonly rows: TransactionRow["columns"][] = [];
  private readonly envelopes: Promise<string[]>[] = [];
  private plaintexts: string[] = [];
  private finished = false;
  /** Wakes `chunks()` when a chunk is submitted or the sealer finishes. */
  private wake: (() => void) | null = null;

  constructor(
    private readonly sealingKey: string,
    private readonly deadline: SyncDeadline,
  ) {}

  async add(transactions: readonly UpstreamTransaction[]): Promise<void> {
    const prepared = await inCpuSlices(transactions, transactionRow, this.deadline);
    for (const row of prepared) {
      this.rows.push(row.columns);
      this.plaintexts.push(row.plaintext);
      if (this.plaintexts.length === WRITE_CHUNK) this.submit();
    }
  }

  /** No more transactions: the last, partial chunk goes to the pool. Returns every chunk's envelopes. */
  finish(): Promise<string[]>[] {
    if (!this.finished && this.plaintexts.length > 0) this.submit();
    this.finished = true;
    this.notify();
    return this.envelopes;
  }

  /**
   * Every chunk as soon as it goes to the pool, while later ones are still
   * being fetched; ends once `finish()` was called and every chunk was given.
   */
  async *chunks(): AsyncGenerator<SealingChunk> {
    for (let index = 0; ; index += 1) {
      while (index >= this.envelopes.length && !this.finished) {
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
      const envelopes = this.envelopes[index];
      if (envelopes === undefined) return;
      const start = index * WRITE_CHUNK;
      yield { rows: this.rows.slice(start, start + WRITE_CHUNK), envelopes };
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private submit(): void {
    const sealed = sealAll(this.sealingKey, this.plaintexts);
    // Awaited later, in order; a failure before that must not go unhandled.
    sealed.catch(() => undefined);
    this.envelopes.push(sealed);
    this.plaintexts = [];
    this.notify();
  }
}

/** Resolves with the promise, or rejects with SyncDeadlineError when the deadline passes first. */
function beforeDeadline<T>(promise: Promise<T>, deadline: SyncDeadline): Promise<T> {
  deadline.check();
  return new Promise<T>((resolve, reject) => {
    const expire = () => reject(new SyncDeadlineError());
    deadline.signal.addEventListener("abort", expire, { once: true });
    promise
      .then(resolve, reject)
      .finally(() => deadline.signal.removeEventListener("abort", expire));
  });
}

const INSERT_TRANSACTIONS = `
INSERT INTO "Transaction" ("id", "accountId", "currency", "creditDebitIndicator", "status",
  "bookingDate", "valueDate", "transactionDate", "bankTransactionCode", "enc", "dedupeHash")
SELECT gen_random_uuid(), $1::uuid, rows.*
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
  $9::text[], $10::text[]) AS rows
ON CONFLICT ("accountId", "dedupeHash") DO NOTHING`;

/**
 * While a SECRET_KEY rotation is under way, a row stored under the previous
 * secret's dedupe hash is the same transaction: its hash is rewritten to the
 * current secret's (unless that one is stored too), so the insert that follows
 * skips it and it stays recognized once the previous secret is gone
 * (docs/operations.md, "Rotating SECRET_KEY").
 */
const REHASH_TRANSACTIONS = `
UPDATE "Transaction" AS stored SET "dedupeHash" = rows."dedupeHash"
FROM unnest($2::text[], $3::text[]) AS rows("dedupeHash", "previousDedupeHash")
WHERE stored."accountId" = $1::uuid AND stored."dedupeHash" = rows."previousDedupeHash"
  AND NOT EXISTS (SELECT 1 FROM "Transaction" AS current
    WHERE current."accountId" = $1::uuid AND current."dedupeHash" = rows."dedupeHash")`;

/**
 * Writes the sealed transactions in chunks, each once its envelopes are
 * sealed; `beforeStatement` runs before each (the deadline's statement
 * timeout). Returns how many rows were new.
 */
export async function insertTransactions(
  tx: Prisma.TransactionClient,
  accountId: string,
  chunks: AsyncIterable<SealingChunk>,
  deadline: SyncDeadline,
  beforeStatement: (tx: Prisma.TransactionClient) => Promise<void>,
): Promise<number> {
  let created = 0;
  for await (const chunk of chunks) {
    const envelopes = await beforeDeadline(chunk.envelopes, deadline);
    const rows = chunk.rows.slice(0, envelopes.length);
    await beforeStatement(tx);
    if (rows.some((row) => row.previousDedupeHash !== null)) {
      await tx.$executeRawUnsafe(
        REHASH_TRANSACTIONS,
        accountId,
        rows.map((row) => row.dedupeHash),
        rows.map((row) => row.previousDedupeHash),
      );
    }
    created += await tx.$executeRawUnsafe(
      INSERT_TRANSACTIONS,
      accountId,
      rows.map((row) => row.currency),
      rows.map((row) => row.creditDebitIndicator),
      rows.map((row) => row.status),
      rows.map((row) => row.bookingDate),
      rows.map((row) => row.valueDate),
      rows.map((row) => row.transactionDate),
      rows.map((row) => row.bankTransactionCode),
      envelopes,
      rows.map((row) => row.dedupeHash),
    );
  }
  return created;
}
