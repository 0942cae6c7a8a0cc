import { sealAll } from "../crypto/seal-pool";
import type { UpstreamTransaction } from "../upstream/types";
import { inCpuSlices, SyncDeadlineError, type SyncDeadline } from "./budget";
import { TransactionIdentities } from "./identity";
import { transactionRow, type TransactionRow } from "./sealing";
import { insertTransactionRows, rehashTransactions } from "./queries/transactions";
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
    // A row stored under one of a transaction's previous keys (the previous
    // secret's during a SECRET_KEY rotation, or the key of an account stored
    // before identities were fingerprints) is the same transaction: its key is
    // rewritten to the current one first, so the insert recognizes it, and it
    // stays recognized afterwards (docs/operations.md, "Rotating SECRET_KEY").
    if (previous.length > 0) await rehashTransactions(run, accountId, previous);
    const written = await insertTransactionRows(run, accountId, rows, envelopes);
    if (written.length === 0) continue;
    const byHash = new Map(rows.map((row) => [row.dedupeHash, row]));
    for (const { id, dedupeHash } of written) {
      const row = byHash.get(dedupeHash);
      if (row) inserted.push({ id, row });
    }
  }
  return inserted;
}
