import { UpstreamError, type Upstream, type UpstreamReadOptions } from "../upstream/types";
import type { UpstreamTransaction } from "../upstream/types";
import { startSyncDeadline, yieldToEventLoop, type SyncDeadline } from "./budget";
import { insertTransactions, TransactionSealer, type InsertedRow } from "./write";
import { writeStatementsWithinDeadline, type RunStatement } from "./write-transaction";

/**
 * An account's transactions, from the bank's pages to stored rows
 * (docs/ingest.md): the pages are fetched and each is sealed in the sealing
 * pool as it arrives (an account's read), and one write transaction inserts
 * the sealed chunks as they come back. A sync reads and writes at once; a new
 * consent's history is read one account ahead of its writes
 * (`HistoryReading`).
 */

/** A guard against an upstream that never ends its paging. */
const MAX_PAGES = 1000;
/**
 * The most transaction data one account's fetch may hold in memory, counted
 * as the upstream's own JSON of each transaction, across all pages (about
 * 45 000 transactions; two years of a busy shop are about 7 MB).
 */
export const MAX_FETCHED_BYTES = 32 * 1024 * 1024;

/** One way of asking for an account's transactions: from a day, or as far back as the bank goes. */
export interface ReadWindow {
  /** `YYYY-MM-DD`; with `longest`, what an upstream that cannot do it reads from. */
  dateFrom: string;
  strategy?: "longest";
}

/**
 * The bank's answers that mean "not this window" (Enable Banking's
 * `WRONG_TRANSACTIONS_PERIOD`, and `WRONG_REQUEST_PARAMETERS` from a bank
 * that cannot do `strategy=longest`): the next, shorter window is tried.
 */
const WINDOW_REFUSALS: ReadonlySet<string> = new Set([
  "WRONG_TRANSACTIONS_PERIOD",
  "WRONG_REQUEST_PARAMETERS",
]);

const refusesWindow = (error: unknown) =>
  error instanceof UpstreamError &&
  error.bankErrorCode !== null &&
  WINDOW_REFUSALS.has(error.bankErrorCode);

export interface FetchedTransactions {
  transactions: UpstreamTransaction[];
  /** The window the bank accepted. */
  window: ReadWindow;
}

/**
 * Every page of the first of `windows` the bank accepts: a window refused on
 * its first page gives way to the next (docs/ingest.md#how-far-back-a-first-history-goes).
 */
export async function fetchTransactions(
  upstream: Upstream,
  accountUid: string,
  windows: readonly ReadWindow[],
  options: UpstreamReadOptions = {},
  deadline: SyncDeadline = startSyncDeadline(),
  /** Each page as it arrives (to start sealing it); the whole list is returned too. */
  onPage?: (transactions: readonly UpstreamTransaction[]) => Promise<void>,
): Promise<FetchedTransactions> {
  for (const [index, window] of windows.entries()) {
    try {
      const transactions = await fetchWindow(
        upstream,
        accountUid,
        window,
        options,
        deadline,
        onPage,
      );
      return { transactions, window };
    } catch (error) {
      const last = index === windows.length - 1;
      if (last || !(error instanceof WindowRefusedError)) {
        throw error instanceof WindowRefusedError ? error.cause : error;
      }
    }
  }
  throw new Error("no window to read");
}

/** The bank refused the window before giving any page of it. */
class WindowRefusedError extends Error {
  constructor(cause: unknown) {
    super("the bank refused the window", { cause });
    this.name = "WindowRefusedError";
  }
}

async function fetchWindow(
  upstream: Upstream,
  accountUid: string,
  window: ReadWindow,
  options: UpstreamReadOptions,
  deadline: SyncDeadline,
  onPage?: (transactions: readonly UpstreamTransaction[]) => Promise<void>,
): Promise<UpstreamTransaction[]> {
  const transactions: UpstreamTransaction[] = [];
  let bytes = 0;
  let continuationKey: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    deadline.check();
    let result;
    try {
      result = await upstream.getTransactions(
        accountUid,
        { ...window, continuationKey },
        { ...options, signal: deadline.signal },
      );
    } catch (error) {
      throw page === 0 && refusesWindow(error) ? new WindowRefusedError(error) : error;
    }
    for (const transaction of result.transactions) bytes += transaction.rawJson.length;
    if (bytes > MAX_FETCHED_BYTES) {
      throw new UpstreamError(
        "bank_error",
        `the upstream's transactions exceed ${MAX_FETCHED_BYTES} bytes for one account`,
      );
    }
    transactions.push(...result.transactions);
    await onPage?.(result.transactions);
    if (!result.continuationKey) return transactions;
    continuationKey = result.continuationKey;
    // An in-process upstream (the sandbox) answers without I/O: let other requests in.
    await yieldToEventLoop();
  }
  throw new Error(`the upstream gave more than ${MAX_PAGES} pages of transactions`);
}

/** An account's pages being fetched, and sealed as they arrive, ahead of their write. */
export interface AccountRead<T> {
  sealer: TransactionSealer;
  /** What the fetch returned; settles once every page is in (or the fetch failed). */
  fetched: Promise<T>;
}

/** A read given up on: its write will not happen. */
class ReadAbandonedError extends Error {
  constructor() {
    super("the read was given up");
    this.name = "ReadAbandonedError";
  }
}

/**
 * Starts fetching with `fetch`, handing each page to the sealer. The read
 * stops at its next page once `abandoned()` is true.
 */
function startRead<T>(input: {
  sealingKey: string;
  deadline: SyncDeadline;
  legacyIdentities?: boolean;
  fetch: (onPage: (page: readonly UpstreamTransaction[]) => Promise<void>) => Promise<T>;
  abandoned?: () => boolean;
}): AccountRead<T> {
  const sealer = new TransactionSealer(input.sealingKey, input.deadline, input);
  const fetched = input
    .fetch(async (page) => {
      if (input.abandoned?.()) throw new ReadAbandonedError();
      await sealer.add(page);
    })
    .finally(() => sealer.finish());
  // Awaited by the write; a failure before it starts must not go unhandled meanwhile.
  fetched.catch(() => undefined);
  return { sealer, fetched };
}

/** What a read wrote, for the statements that complete its transaction. */
export interface ReadWritten {
  /** The rows that were new. */
  inserted: InsertedRow[];
  /** The identities of the pending entries the bank reported. */
  pendingSeen: ReadonlySet<string>;
}

/**
 * Stores a read's transactions in one write transaction: each chunk is
 * inserted as soon as the sealing pool has sealed it, while later pages may
 * still be fetched, so PostgreSQL works beside the sealing rather than after
 * it. `complete` finishes the transaction once every chunk is in, and says
 * how many of the new rows are new transactions (a pending one that booked
 * is not). A failure anywhere (the bank, the deadline, the database) rolls
 * it all back: nothing of the account is stored unless all of it is.
 */
export async function storeRead<T>(input: {
  read: AccountRead<T>;
  accountId: string;
  deadline: SyncDeadline;
  complete: (run: RunStatement, fetched: T, written: ReadWritten) => Promise<number | void>;
}): Promise<{ fetched: T; created: number }> {
  const { read, deadline } = input;
  return writeStatementsWithinDeadline(deadline, async (run) => {
    const writing = insertTransactions(run, input.accountId, read.sealer.chunks(), deadline);
    // Awaited below; a failure while the pages still arrive must not go unhandled meanwhile.
    writing.catch(() => undefined);
    let fetched: T;
    try {
      fetched = await read.fetched;
    } catch (error) {
      // The transaction is rolled back once the statement under way has ended.
      await writing.catch(() => undefined);
      throw error;
    }
    const inserted = await writing;
    const created = await input.complete(run, fetched, {
      inserted,
      pendingSeen: read.sealer.pendingSeen,
    });
    return { fetched, created: created ?? inserted.length };
  });
}

/** A sync's read and write at once: the transaction opens with the first page. */
export function storeWhileFetching<T>(input: {
  sealingKey: string;
  accountId: string;
  deadline: SyncDeadline;
  legacyIdentities?: boolean;
  fetch: (onPage: (page: readonly UpstreamTransaction[]) => Promise<void>) => Promise<T>;
  complete: (run: RunStatement, fetched: T, written: ReadWritten) => Promise<number | void>;
}): Promise<{ fetched: T; created: number }> {
  const read = startRead(input);
  return storeRead({ ...input, read });
}

/**
 * The first history of a new consent's accounts, read in their order, each
 * one once the previous one's pages are all in: the next account is fetched
 * while the previous one's last chunks are sealed and written. Reads never
 * touch the database, so the writes still hold one connection at a time, one
 * account after another.
 */
export class HistoryReading {
  readonly deadline: SyncDeadline;
  private readonly reads: AccountRead<FetchedTransactions>[] = [];
  private stopped = false;

  constructor(
    private readonly input: {
      sealingKey: string;
      upstream: Upstream;
      accountUids: readonly string[];
      /** The windows to ask for, the first the bank accepts is read (`fetchTransactions`). */
      windows: readonly ReadWindow[];
      deadline?: SyncDeadline;
    },
  ) {
    this.deadline = input.deadline ?? startSyncDeadline();
    if (input.accountUids.length > 0) this.start(0);
  }

  /** The read of the account at `index` of the uids given, started now at the latest. */
  read(index: number, accountUid: string): AccountRead<FetchedTransactions> {
    if (this.input.accountUids[index] !== accountUid) {
      throw new Error("the accounts are not in the order their history is read");
    }
    return this.start(index);
  }

  /** No more pages are fetched for any account (the writes have ended). */
  stop(): void {
    this.stopped = true;
  }

  /** The read of the account at `index` (a valid index), started if it was not. */
  private start(index: number): AccountRead<FetchedTransactions> {
    const started = this.reads[index];
    if (started) return started;
    const { upstream, accountUids, windows } = this.input;
    const uid = accountUids[index] ?? "";
    const read = startRead({
      sealingKey: this.input.sealingKey,
      deadline: this.deadline,
      fetch: (onPage) => fetchTransactions(upstream, uid, windows, {}, this.deadline, onPage),
      abandoned: () => this.stopped,
    });
    this.reads[index] = read;
    const next = () => {
      if (!this.stopped && index + 1 < accountUids.length) this.start(index + 1);
    };
    void read.fetched.then(next, next);
    return read;
  }
}
