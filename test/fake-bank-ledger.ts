/**
 * One account's truth at a bank that behaves as Enable Banking's API
 * reference describes banks (its `Transaction` schema and the transactions
 * query), day by day: what the account holds, and how the bank reports it
 * on `GET /accounts/{uid}/transactions` and `/balances`. The Enable Banking
 * fake (test/fake-enable-banking.ts) serves an account from its ledger when
 * one is set, so the service meets these behaviours over real HTTP, and a
 * test compares what a partner reads with `truth()`.
 *
 * Days are numbers; `dayToIso` maps them to dates. Nothing here knows how
 * the service stores anything.
 */

export interface LedgerEntry {
  /** The bank's own identity of the entry: on the wire only as `entry_reference`, when given. */
  key: string;
  /** Unsigned decimal, as first reported (the authorized amount of a card payment). */
  amount: string;
  /** The amount it books with, when it differs (a tip, a currency conversion). */
  bookedAmount?: string;
  currency?: string;
  direction: "CRDT" | "DBIT";
  counterparty: string;
  remittance: string;
  /** The day the payment was made (`transaction_date`). */
  madeOn: number;
  /**
   * Reported as pending from this day until it books or is released: the reference's
   * `status` `PDNG`, without `booking_date`. Its booked version is another entry to the bank,
   * under another `transaction_id` (and `entry_reference`, if any) and perhaps another amount.
   */
  pendingFrom?: number;
  /** Its `booking_date`; it is reported booked from then (or from `visibleFrom`). */
  bookedOn?: number;
  /**
   * A late arrival: first reported on this day, though its `booking_date` (`bookedOn`) is
   * earlier. The reference's `booking_date` is the day the bank booked it, not the day it
   * appears in the list.
   */
  visibleFrom?: number;
  /**
   * A released authorization: no longer reported from this day, never booked. The reference
   * promises no status for it: a pending entry simply stops being listed.
   */
  releasedOn?: number;
}

export interface LedgerOptions {
  /**
   * When the bank gives `entry_reference`. The reference: "not always
   * available and for some ASPSPs availability may depend on the transaction
   * status (e.g. for pending transactions)".
   */
  references: "always" | "booked" | "never";
  /**
   * How many days back the bank keeps transactions: a `date_from` before that
   * is refused with `WRONG_TRANSACTIONS_PERIOD` (the reference's `ErrorCode`).
   */
  keepsDays?: number;
  /** Whether the bank can do the reference's `strategy=longest`; refused like a period otherwise. */
  longest?: boolean;
  /** A bank whose `transaction_id` stays the same from read to read (some do). */
  stableTransactionIds?: boolean;
  /** Entries per page, linked by `continuation_key`. */
  pageSize?: number;
  /** The booked balance before the first entry. */
  openingBalance?: string;
  /** Sim day 0's date, `YYYY-MM-DD`. */
  startDate: string;
}

/** What the account holds on a day, as a partner should read it. */
export interface TruthEntry {
  key: string;
  status: "BOOK" | "PDNG";
  amount: string;
  direction: "CRDT" | "DBIT";
  /** The booking date of a booked entry, the transaction date of a pending one. */
  day: string;
  counterparty: string;
  remittance: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const cents = (amount: string) => Math.round(Number(amount) * 100);
const decimal = (value: number) => (value / 100).toFixed(2);

export class FakeBankLedger {
  readonly entries: LedgerEntry[] = [];
  /** The bank's today. */
  today = 0;
  /** Reads served, each with its own `transaction_id`s. */
  private reads = 0;
  private readonly pages = new Map<string, unknown[][]>();

  constructor(readonly options: LedgerOptions) {}

  dayToIso(day: number): string {
    return new Date(Date.parse(`${this.options.startDate}T00:00:00Z`) + day * DAY_MS)
      .toISOString()
      .slice(0, 10);
  }

  private isoToDay(iso: string): number {
    return Math.round(
      (Date.parse(`${iso}T00:00:00Z`) - Date.parse(`${this.options.startDate}T00:00:00Z`)) / DAY_MS,
    );
  }

  add(...entries: LedgerEntry[]): this {
    this.entries.push(...entries);
    return this;
  }

  private bookedToday(entry: LedgerEntry): boolean {
    return entry.bookedOn !== undefined && (entry.visibleFrom ?? entry.bookedOn) <= this.today;
  }

  private pendingToday(entry: LedgerEntry): boolean {
    return (
      entry.pendingFrom !== undefined &&
      entry.pendingFrom <= this.today &&
      !this.bookedToday(entry) &&
      (entry.releasedOn === undefined || entry.releasedOn > this.today)
    );
  }

  /** What the account holds today. */
  truth(): TruthEntry[] {
    const truth: TruthEntry[] = [];
    for (const entry of this.entries) {
      const booked = this.bookedToday(entry);
      if (!booked && !this.pendingToday(entry)) continue;
      truth.push({
        key: entry.key,
        status: booked ? "BOOK" : "PDNG",
        amount: booked ? (entry.bookedAmount ?? entry.amount) : entry.amount,
        direction: entry.direction,
        day: this.dayToIso(booked ? (entry.bookedOn ?? 0) : entry.madeOn),
        counterparty: entry.counterparty,
        remittance: entry.remittance,
      });
    }
    return truth;
  }

  /** The booked balance (`CLBD`) and the available one (`ITAV`: booked less pending debits). */
  balances(): { booked: string; available: string } {
    let booked = cents(this.options.openingBalance ?? "1000.00");
    let held = 0;
    for (const entry of this.truth()) {
      const value = cents(entry.amount) * (entry.direction === "CRDT" ? 1 : -1);
      if (entry.status === "BOOK") booked += value;
      else if (entry.direction === "DBIT") held += cents(entry.amount);
    }
    return { booked: decimal(booked), available: decimal(booked - held) };
  }

  /** Enable Banking's balances JSON. */
  balancesJson(): unknown[] {
    const { booked, available } = this.balances();
    const today = this.dayToIso(this.today);
    const currency = "EUR";
    return [
      { balance_amount: { amount: booked, currency }, balance_type: "CLBD", reference_date: today },
      {
        balance_amount: { amount: available, currency },
        balance_type: "ITAV",
        reference_date: today,
      },
    ];
  }

  /**
   * One page of `GET /accounts/{uid}/transactions`, or the error the bank
   * answers: `{ status, error }`.
   */
  transactionsPage(
    query: Record<string, string>,
  ):
    | { page: { transactions: unknown[]; continuation_key: string | null } }
    | { status: number; error: string } {
    const pageSize = this.options.pageSize ?? 50;
    const continuation = query.continuation_key;
    if (continuation) {
      const [readId, index] = continuation.split(":");
      const pages = this.pages.get(readId ?? "");
      const page = pages?.[Number(index)];
      if (!pages || !page) return { status: 400, error: "WRONG_CONTINUATION_KEY" };
      const next = Number(index) + 1 < pages.length ? `${readId}:${Number(index) + 1}` : null;
      return { page: { transactions: page, continuation_key: next } };
    }
    const keeps = this.options.keepsDays ?? 730;
    const oldest = this.today - keeps;
    let from: number;
    if (query.strategy === "longest") {
      if (this.options.longest === false)
        return { status: 422, error: "WRONG_TRANSACTIONS_PERIOD" };
      from = oldest;
    } else {
      if (!query.date_from) return { status: 422, error: "WRONG_REQUEST_PARAMETERS" };
      from = this.isoToDay(query.date_from);
      if (from < oldest) return { status: 422, error: "WRONG_TRANSACTIONS_PERIOD" };
    }
    this.reads += 1;
    const read = this.reads;
    // Newest first. Booked entries are filtered by booking date, pending ones by the day they
    // were made: a pending entry older than `date_from` is not reported.
    const listed = this.entries
      .filter((entry) => this.bookedToday(entry) || this.pendingToday(entry))
      .map((entry) => ({ entry, booked: this.bookedToday(entry) }))
      .filter(({ entry, booked }) => (booked ? (entry.bookedOn ?? 0) : entry.madeOn) >= from)
      .sort(
        (a, b) =>
          (b.booked ? (b.entry.bookedOn ?? 0) : b.entry.madeOn) -
          (a.booked ? (a.entry.bookedOn ?? 0) : a.entry.madeOn),
      )
      .map(({ entry, booked }) => this.toJson(entry, booked, read));
    const pages: unknown[][] = [];
    for (let start = 0; start < listed.length; start += pageSize) {
      pages.push(listed.slice(start, start + pageSize));
    }
    if (pages.length === 0) pages.push([]);
    this.pages.set(String(read), pages);
    return {
      page: {
        transactions: pages[0] ?? [],
        continuation_key: pages.length > 1 ? `${read}:1` : null,
      },
    };
  }

  private toJson(entry: LedgerEntry, booked: boolean, read: number) {
    const reference =
      this.options.references === "always" || (this.options.references === "booked" && booked);
    const party = { name: entry.counterparty };
    return {
      // The reference: `transaction_id` "may change if the list of transactions is requested
      // again"; this bank gives a new one on every read.
      transaction_id: this.options.stableTransactionIds ? entry.key : `${entry.key}-read${read}`,
      ...(reference && { entry_reference: `REF-${entry.key}` }),
      transaction_amount: {
        amount: booked ? (entry.bookedAmount ?? entry.amount) : entry.amount,
        currency: entry.currency ?? "EUR",
      },
      credit_debit_indicator: entry.direction,
      status: booked ? "BOOK" : "PDNG",
      booking_date: booked ? this.dayToIso(entry.bookedOn ?? 0) : null,
      value_date: booked ? this.dayToIso(entry.bookedOn ?? 0) : null,
      transaction_date: this.dayToIso(entry.madeOn),
      ...(entry.direction === "DBIT" ? { creditor: party } : { debtor: party }),
      remittance_information: [entry.remittance],
    };
  }
}
