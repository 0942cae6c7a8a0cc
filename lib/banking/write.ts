import { v7 as uuidV7 } from "uuid";
import { sealAll } from "../crypto/seal-pool";
import type { UpstreamTransaction } from "../upstream/types";
import { inCpuSlices, SyncDeadlineError, type SyncDeadline } from "./budget";
import { TransactionIdentities } from "./identity";
import { transactionRow, type TransactionRow } from "./sealing";
import type { RunStatement } from "./write-transaction";

/**
 * Sealing and writing many transactions fast (docs/ingest.md):
 *
 * - the plaintext columns, keyed hashes and JSON texts are made on the main
 *   thread, in CPU slices with the event loop free in between;
 * - the envelopes are sealed in the sealing pool's worker threads, one per
 *   core, in chunks of WRITE_CHUNK, each queued as soon as its rows are
 *   fetched (the workers seal while later pages arrive);
 * - each chunk is written by one INSERT … SELECT FROM json_to_recordset(…)
 *   with the rows as one JSON parameter however many rows it has (a
 *   multi-row VALUES list would need eleven parameters per row and a
 *   statement text per size), while the workers seal the next chunks.
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
  /** The identities of the pending entries this read reported. */
  readonly pendingSeen = new Set<string>();
  private readonly identities: TransactionIdentities;
  private readonly rows: TransactionRow["columns"][] = [];
  private readonly envelopes: Promise<string[]>[] = [];
  private plaintexts: string[] = [];
  private finished = false;
  /** Wakes `chunks()` when a chunk is submitted or the sealer finishes. */
  private wake: (() => void) | null = null;

  constructor(
    private readonly sealingKey: string,
    private readonly deadline: SyncDeadline,
    /** The account's rows were stored before identities were fingerprints (lib/banking/identity.ts). */
    options: { legacyIdentities?: boolean } = {},
  ) {
    this.identities = new TransactionIdentities({ legacy: options.legacyIdentities });
  }

  async add(transactions: readonly UpstreamTransaction[]): Promise<void> {
    const prepared = await inCpuSlices(
      transactions,
      (transaction) => {
        const identity = this.identities.of(transaction);
        return identity && transactionRow(transaction, identity);
      },
      this.deadline,
    );
    for (const row of prepared) {
      // An entry this read already gave.
      if (row === null) continue;
      if (row.columns.status === "PDNG") this.pendingSeen.add(row.columns.dedupeHash);
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

/**
 * The chunk travels as one JSON parameter, an array of rows: PostgreSQL
 * reads one JSON text with less work than ten array parameters, and the
 * driver sends one string instead of escaping 5 000 array elements.
 *
 * Each row's id is a UUIDv7 (RFC 9562): time-ordered, so new rows land at
 * the right edge of the primary key's index. Random ids touched a different
 * leaf page of that index for nearly every row, and after each checkpoint
 * PostgreSQL logs a whole copy of every page it touches first: half of a
 * history's write-ahead log (docs/ingest.md).
 *
 * A booked transaction already stored is left as it is (its row, id and
 * envelope never change); a pending one already stored takes what the bank
 * says now. The new rows come back, to be matched with the pending rows the
 * bank no longer reports (lib/banking/pending.ts).
 */
const INSERT_TRANSACTIONS = `
WITH written AS (
INSERT INTO "Transaction" ("id", "accountId", "currency", "creditDebitIndicator", "status",
  "bookingDate", "valueDate", "transactionDate", "bankTransactionCode", "enc", "dedupeHash",
  "matchHash", "amountHash")
SELECT rows.d::uuid, $1::uuid, rows.c, rows.i, rows.s, rows.b, rows.v, rows.t, rows.k,
  rows.e, rows.h, rows.m, rows.a
FROM json_to_recordset($2::json) AS rows(d text, c text, i text, s text, b text, v text, t text,
  k text, e text, h text, m text, a text)
ON CONFLICT ("accountId", "dedupeHash") DO UPDATE SET "currency" = EXCLUDED."currency",
  "creditDebitIndicator" = EXCLUDED."creditDebitIndicator", "status" = EXCLUDED."status",
  "bookingDate" = EXCLUDED."bookingDate", "valueDate" = EXCLUDED."valueDate",
  "transactionDate" = EXCLUDED."transactionDate",
  "bankTransactionCode" = EXCLUDED."bankTransactionCode", "enc" = EXCLUDED."enc",
  "matchHash" = EXCLUDED."matchHash", "amountHash" = EXCLUDED."amountHash"
  WHERE "Transaction"."status" = 'PDNG'
RETURNING "id", "dedupeHash", xmax = 0 AS "inserted"
)
SELECT "id", "dedupeHash" FROM written WHERE "inserted"`;

/**
 * A row stored under one of a transaction's previous keys (the previous
 * secret's during a SECRET_KEY rotation, or the key of an account stored
 * before identities were fingerprints) is the same transaction: its key is
 * rewritten to the current one (unless that one is stored too), so the
 * insert that follows recognizes it, and it stays recognized afterwards
 * (docs/operations.md, "Rotating SECRET_KEY"). One stored row per key.
 */
const REHASH_TRANSACTIONS = `
UPDATE "Transaction" AS stored SET "dedupeHash" = found."dedupeHash"
FROM (
  SELECT DISTINCT ON (rows."dedupeHash") rows."dedupeHash", earlier."id"
  FROM unnest($2::text[], $3::text[]) AS rows("dedupeHash", "previousHash")
  JOIN "Transaction" AS earlier
    ON earlier."accountId" = $1::uuid AND earlier."dedupeHash" = rows."previousHash"
  WHERE NOT EXISTS (SELECT 1 FROM "Transaction" AS current
    WHERE current."accountId" = $1::uuid AND current."dedupeHash" = rows."dedupeHash")
  ORDER BY rows."dedupeHash"
) AS found
WHERE stored."id" = found."id"`;

/** A row this read inserted: its id, and what it may be matched on (lib/banking/pending.ts). */
export interface InsertedRow {
  id: string;
  row: TransactionRow["columns"];
}

/**
 * Writes the sealed transactions in chunks, each once its envelopes are
 * sealed, with the write transaction's statements. Returns the rows that
 * were new.
 */
export async function insertTransactions(
  run: RunStatement,
  accountId: string,
  chunks: AsyncIterable<SealingChunk>,
  deadline: SyncDeadline,
): Promise<InsertedRow[]> {
  const inserted: InsertedRow[] = [];
  for await (const chunk of chunks) {
    const envelopes = await beforeDeadline(chunk.envelopes, deadline);
    const rows = chunk.rows.slice(0, envelopes.length);
    const previous = rows.flatMap((row) =>
      row.previousHashes.map((hash) => [row.dedupeHash, hash] as const),
    );
    if (previous.length > 0) {
      await run(REHASH_TRANSACTIONS, [
        accountId,
        previous.map(([current]) => current),
        previous.map(([, hash]) => hash),
      ]);
    }
    const json = JSON.stringify(
      rows.map((row, index) => ({
        d: uuidV7(),
        c: row.currency,
        i: row.creditDebitIndicator,
        s: row.status,
        b: row.bookingDate,
        v: row.valueDate,
        t: row.transactionDate,
        k: row.bankTransactionCode,
        e: envelopes[index],
        h: row.dedupeHash,
        m: row.matchHash,
        a: row.amountHash,
      })),
    );
    const written = await run.rows<{ id: string; dedupeHash: string }>(INSERT_TRANSACTIONS, [
      accountId,
      json,
    ]);
    if (written.length === 0) continue;
    const byHash = new Map(rows.map((row) => [row.dedupeHash, row]));
    for (const { id, dedupeHash } of written) {
      const row = byHash.get(dedupeHash);
      if (row) inserted.push({ id, row });
    }
  }
  return inserted;
}
