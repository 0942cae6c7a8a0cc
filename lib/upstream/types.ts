/**
 * The aggregator interface (docs/architecture.md#upstream-aggregators): what the service needs from an
 * upstream (Enable Banking, or the offline sandbox). Shapes follow Enable
 * Banking's API (`/aspsps`, `/auth`, `/sessions`, `/accounts/{uid}/balances`,
 * `/accounts/{uid}/transactions` with `continuation_key`), in camelCase, so
 * the real connector maps its JSON onto them field by field.
 *
 * Everything below `UpstreamSession` is plaintext bank data: it lives in
 * memory only, is sealed before it is stored (/docs/envelopes) and is never
 * logged (docs/security.md).
 */

export const PSU_TYPES = ["personal", "business"] as const;
export type PsuType = (typeof PSU_TYPES)[number];

export const UPSTREAM_NAMES = ["sandbox", "enablebanking"] as const;
export type UpstreamName = (typeof UPSTREAM_NAMES)[number];

/** A bank (Enable Banking: ASPSP). Identified by `name` + `country`. */
export interface Aspsp {
  name: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  bic: string | null;
  psuTypes: PsuType[];
  /** The longest consent the bank grants (Enable Banking `maximum_consent_validity`), in days. */
  maxConsentDays: number;
  /**
   * The PSU headers the bank requires on a read with the holder present (Enable Banking
   * `required_psu_headers`, lower case: `psu-ip-address`, `psu-geo-location`; lib/upstream/psu-headers.ts).
   * Empty when it requires none.
   */
  requiredPsuHeaders: string[];
  /** A bank that exists only to test failures (the sandbox's scenario banks): listed apart. */
  testOnly?: boolean;
  /** The bank's logo at the upstream (Enable Banking `logo`), when it names one. */
  logo?: string | null;
  /** The upstream connects the bank in beta (Enable Banking `beta`). */
  beta?: boolean;
}

export interface StartAuthorizationInput {
  aspsp: { name: string; country: string };
  psuType: PsuType;
  /** Where the upstream sends the browser back with `code` (or `error`) and `state`. */
  redirectUrl: string;
  state: string;
  /** The consent's requested end; an upstream may shorten it to the bank's maximum. */
  validUntil: Date;
  /** The language the bank's pages should use (e.g. `da`). */
  language: string;
  /**
   * An opaque, stable identifier of the user at this service (a keyed hash,
   * never personal data). The sandbox gives the same person the same
   * accounts at a bank on every consent, as a real bank does.
   */
  psuId?: string;
}

export interface UpstreamAccount {
  /** The upstream's account uid: the key for balances and transactions (sealed as `uidEnc`). */
  uid: string;
  currency: string;
  /** ISO 20022 cash account type, e.g. `CACC`, `SVGS`. */
  accountType: string | null;
  bic: string | null;
  ownerName: string | null;
  iban: string | null;
  bban: string | null;
  accountName: string | null;
  product: string | null;
  displayName: string | null;
}

/** Enable Banking `POST /sessions`: the consent and the accounts it covers. */
export interface UpstreamSession {
  sessionId: string;
  aspsp: { name: string; country: string };
  psuType: PsuType;
  validUntil: Date;
  accounts: UpstreamAccount[];
}

export interface UpstreamBalance {
  /** ISO 20022 balance type: `ITBD` (booked), `ITAV` (available), `CLBD`, `OTHR`, … */
  balanceType: string;
  /** Decimal string, signed (see /docs/envelopes: money is never a JSON number). */
  amount: string;
  currency: string;
  /** `YYYY-MM-DD`. */
  referenceDate: string | null;
  name: string | null;
}

export type CreditDebitIndicator = "CRDT" | "DBIT";
export type TransactionStatus = "BOOK" | "PDNG";

export interface UpstreamTransaction {
  /**
   * The bank's own lasting reference of the entry (Enable Banking
   * `entry_reference`), or null when the bank gives none (many do not, and
   * some give one only once the entry is booked). When given, it is the
   * stored transaction's identity (docs/ingest.md#one-transaction-one-row).
   */
  entryReference: string | null;
  /**
   * The bank's id of the entry in this read (Enable Banking `transaction_id`):
   * it may change from one read to the next, so it is never an identity.
   */
  transactionId: string | null;
  /** Decimal string, unsigned: the sign is `creditDebitIndicator` (/docs/envelopes). */
  amount: string;
  currency: string;
  creditDebitIndicator: CreditDebitIndicator;
  status: TransactionStatus;
  /** `YYYY-MM-DD` dates. */
  bookingDate: string | null;
  valueDate: string | null;
  transactionDate: string | null;
  /** e.g. ISO 20022 `PMNT-ICDT-ESCT`. */
  bankTransactionCode: string | null;
  creditorName: string | null;
  creditorIban: string | null;
  creditorBban: string | null;
  creditorAgentBic: string | null;
  debtorName: string | null;
  debtorIban: string | null;
  debtorBban: string | null;
  debtorAgentBic: string | null;
  remittanceInformation: string | null;
  note: string | null;
  referenceNumber: string | null;
  /** e.g. `"4816"`. */
  merchantCategoryCode: string | null;
  /** Decimal string, signed. */
  balanceAfter: string | null;
  balanceAfterCurrency: string | null;
  /** Decimal string. */
  exchangeRate: string | null;
  /** The upstream's own JSON of this transaction, as a string (`rawJson`, /docs/envelopes). */
  rawJson: string;
}

export interface TransactionQuery {
  /**
   * `YYYY-MM-DD`, inclusive, on the booking date. With `strategy: "longest"`
   * the bank reads as far back as it keeps and this day is not sent.
   */
  dateFrom: string;
  /**
   * `longest` (Enable Banking's transactions `strategy`): as far back as the
   * bank allows, for a first history (docs/ingest.md#how-far-back-a-first-history-goes).
   * A bank that cannot do it refuses; the caller then asks for a window.
   */
  strategy?: "longest";
  /** `YYYY-MM-DD`, inclusive; defaults to the upstream's today. */
  dateTo?: string;
  /** The previous page's `continuationKey`; the dates must be the same as on the first page. */
  continuationKey?: string;
}

export interface TransactionPage {
  transactions: UpstreamTransaction[];
  /** Null on the last page. */
  continuationKey: string | null;
}

/** Per-call options of the reads a sync makes (docs/architecture.md#upstream-aggregators). */
export interface UpstreamReadOptions {
  /**
   * The user's own request details (`Psu-Ip-Address`, `Psu-User-Agent`, …),
   * given only when the user is present: a bank then treats the read as the
   * user's own and not as a background pull (PSD2 allows four of those a day).
   * Upstreams without such a notion ignore them.
   */
  psuHeaders?: Record<string, string>;
  /**
   * Aborts the read (the sync's deadline passed). An upstream that answers
   * from memory may ignore it: its caller checks the deadline between pages.
   */
  signal?: AbortSignal;
}

export interface Upstream {
  readonly name: UpstreamName;
  /** Enable Banking `GET /aspsps`. */
  listBanks(filter?: { country?: string }): Promise<Aspsp[]>;
  /** Enable Banking `POST /auth`: the bank's consent page to send the browser to. */
  startAuthorization(
    input: StartAuthorizationInput,
  ): Promise<{ url: string; authorizationId: string }>;
  /** Enable Banking `POST /sessions` with the `code` the redirect brought back. */
  completeAuthorization(input: { code: string }): Promise<UpstreamSession>;
  getBalances(accountUid: string, options?: UpstreamReadOptions): Promise<UpstreamBalance[]>;
  getTransactions(
    accountUid: string,
    query: TransactionQuery,
    options?: UpstreamReadOptions,
  ): Promise<TransactionPage>;
  /** Enable Banking `DELETE /sessions/{id}`: ends the consent at the bank. */
  closeSession(sessionId: string): Promise<void>;
  /**
   * Enable Banking `GET /application`: whether the application may fetch data at all, and the
   * redirect URLs registered with it (null when the upstream has no such registration).
   */
  applicationStatus(): Promise<{ active: boolean; redirectUrls: string[] | null }>;
}

/**
 * Per /docs/sync, the machine reasons an upstream failure maps to, with the status
 * the sync endpoints answer with (a table, docs/architecture.md#policies-as-data).
 */
export const UPSTREAM_FAILURE_STATUS = {
  reconnect_needed: 409,
  consent_withdrawn: 409,
  // The bank shares data only with the account holder present (/docs/sync).
  psu_present_required: 409,
  // The holder was present, but the bank requires PSU headers that were not sent (/docs/sync).
  psu_headers_missing: 409,
  rate_limited: 429,
  bank_error: 502,
  transient: 503,
  partner_app_inactive: 503,
} as const satisfies Record<string, number>;

export type UpstreamFailureReason = keyof typeof UPSTREAM_FAILURE_STATUS;

/**
 * An upstream call that failed for a reason the caller can act on. The
 * message is for logs (no bank data); `bankErrorCode` is the upstream's own
 * code (e.g. `ASPSP_RATE_LIMIT_EXCEEDED`, /docs/sync) and is safe to show.
 */
export class UpstreamError extends Error {
  readonly bankErrorCode: string | null;
  /** Integer seconds, for `Retry-After` (/docs/data). */
  readonly retryAfterSeconds: number | null;

  constructor(
    readonly reason: UpstreamFailureReason,
    message: string,
    options: { bankErrorCode?: string; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "UpstreamError";
    this.bankErrorCode = options.bankErrorCode ?? null;
    this.retryAfterSeconds =
      options.retryAfterSeconds === undefined
        ? null
        : Math.max(0, Math.ceil(options.retryAfterSeconds));
  }

  get status(): number {
    return UPSTREAM_FAILURE_STATUS[this.reason];
  }
}
