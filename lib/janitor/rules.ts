import { AUDIT_RETENTION_DAYS } from "../audit/query";
import type { Statement } from "../db/sql";
import * as q from "./queries";

/**
 * What the janitor removes, table by table (docs/operations.md#cleanup-janitor):
 * a row goes only once nothing can use it any more. Each rule is a condition
 * on the table's own expiry column (indexed), with the margin after it that
 * keeps a late Back, reload, mail link or replay answered as it should be.
 * The margins are kept here; the statements that apply them are in ./queries.ts.
 */

export const HOUR_MS = 60 * 60_000;
export const DAY_MS = 24 * HOUR_MS;

export interface JanitorRule {
  /** The table, as the schema names it. */
  table: string;
  /** How long a row stays, in words (reports, the admin CLI, the docs). */
  retention: string;
  /** One batch: the DELETE of at most `batchSize` of the rows due for removal at `now`. */
  remove(now: Date, batchSize: number): Statement;
  /** The count of the rows due for removal at `now`. */
  count(now: Date): Statement;
}

const before = (now: Date, ms: number) => new Date(now.getTime() - ms);

/** How long after the flow expired a flow is kept (as long as a sign-in mail asked for it). */
export const FLOW_KEPT_MS = 7 * DAY_MS;
/** How long after the flow expired a flow a person signed in to is kept (the way back to its partner). */
export const SIGNED_IN_FLOW_KEPT_MS = 30 * DAY_MS;
/** How long after its last heartbeat an ingest is kept: finished long ago, or its process died. */
export const INGEST_KEPT_MS = DAY_MS;
export const BANK_AUTHORIZATION_KEPT_MS = DAY_MS;
export const AUTHORIZATION_CODE_KEPT_MS = DAY_MS;
export const LOGIN_CHALLENGE_KEPT_MS = FLOW_KEPT_MS;
export const BROWSER_SESSION_KEPT_MS = HOUR_MS;
export const SIGN_IN_COUNTER_KEPT_MS = HOUR_MS;
/** The PIN budget's longest window (365 days) and a day. */
export const PIN_FAILURE_KEPT_MS = 366 * DAY_MS;
/** A closure is remembered for a year after it ended (it doubles the next one); and a day. */
export const PIN_CLOSURE_KEPT_MS = 366 * DAY_MS;
export const PASSKEY_CHALLENGE_KEPT_MS = HOUR_MS;
export const OUTBOX_KEPT_MS = 7 * DAY_MS;
export const AUDIT_KEPT_MS = AUDIT_RETENTION_DAYS * DAY_MS;
/** A webhook event, with its deliveries and their attempts: the dashboard shows the last month. */
export const WEBHOOK_EVENT_KEPT_MS = 30 * DAY_MS;

/** The cutoffs of a flow's removal at `now`. */
const flowCutoffs = (now: Date): q.FlowCutoffs => ({
  signedIn: before(now, SIGNED_IN_FLOW_KEPT_MS),
  anonymous: before(now, FLOW_KEPT_MS),
  heartbeat: before(now, INGEST_KEPT_MS),
});

/** Without a flow: expired that long ago, and no ingest of it still moving. */
const bankAuthorizationCutoffs = (now: Date): q.BankAuthorizationCutoffs => ({
  expired: before(now, BANK_AUTHORIZATION_KEPT_MS),
  heartbeat: before(now, INGEST_KEPT_MS),
});

/** Expired that long ago, its flow going too, and its key no longer live at `now`. */
const authorizationCodeCutoffs = (now: Date): q.AuthorizationCodeCutoffs => ({
  expired: before(now, AUTHORIZATION_CODE_KEPT_MS),
  flow: flowCutoffs(now),
  now,
});

/** A rule whose statements take one cutoff, `kept` before `now`. */
const olderThan = (
  kept: number,
  remove: (cutoff: Date, batchSize: number) => Statement,
  count: (cutoff: Date) => Statement,
) => ({
  remove: (now: Date, batchSize: number) => remove(before(now, kept), batchSize),
  count: (now: Date) => count(before(now, kept)),
});

export const RULES: readonly JanitorRule[] = [
  {
    table: "Flow",
    retention:
      "7 days after it expired; 30 days when a person signed in to it; never while its bank connection is still being stored",
    remove: (now, batchSize) => q.removeFlows(flowCutoffs(now), batchSize),
    count: (now) => q.countFlows(flowCutoffs(now)),
  },
  {
    table: "BankIngest",
    retention:
      "24 hours after its last heartbeat: finished (done or failed) that long ago, or left by a process that died; never one in progress",
    ...olderThan(INGEST_KEPT_MS, q.removeIngests, q.countIngests),
  },
  {
    // One started by a flow goes with its flow; one started by a person's own key has none.
    table: "BankAuthorization",
    retention:
      "without a flow: 24 hours after it expired, never while its connection is still being stored (one of a flow goes with its flow)",
    remove: (now, batchSize) =>
      q.removeBankAuthorizations(bankAuthorizationCutoffs(now), batchSize),
    count: (now) => q.countBankAuthorizations(bankAuthorizationCutoffs(now)),
  },
  {
    table: "AuthorizationCode",
    retention:
      "24 hours after it expired, once its flow goes too and the key it was exchanged for is revoked or expired (a replay still revokes a live key)",
    remove: (now, batchSize) =>
      q.removeAuthorizationCodes(authorizationCodeCutoffs(now), batchSize),
    count: (now) => q.countAuthorizationCodes(authorizationCodeCutoffs(now)),
  },
  {
    table: "LoginChallenge",
    retention: "7 days after it expired (an old mail's link still says it expired)",
    ...olderThan(LOGIN_CHALLENGE_KEPT_MS, q.removeLoginChallenges, q.countLoginChallenges),
  },
  {
    table: "BrowserSession",
    retention: "1 hour after it expired",
    ...olderThan(BROWSER_SESSION_KEPT_MS, q.removeBrowserSessions, q.countBrowserSessions),
  },
  {
    table: "SignInCounter",
    retention: "1 hour after its window ended",
    ...olderThan(SIGN_IN_COUNTER_KEPT_MS, q.removeSignInCounters, q.countSignInCounters),
  },
  {
    table: "PinFailure",
    retention: "366 days (the PIN budget counts 365)",
    ...olderThan(PIN_FAILURE_KEPT_MS, q.removePinFailures, q.countPinFailures),
  },
  {
    table: "PinClosure",
    retention: "366 days after the closure ended (a closure less than a year old doubles the next)",
    ...olderThan(PIN_CLOSURE_KEPT_MS, q.removePinClosures, q.countPinClosures),
  },
  {
    table: "PasskeyChallenge",
    retention: "1 hour after it expired",
    ...olderThan(PASSKEY_CHALLENGE_KEPT_MS, q.removePasskeyChallenges, q.countPasskeyChallenges),
  },
  {
    table: "OutboxMessage",
    retention: "7 days after it was stored",
    ...olderThan(OUTBOX_KEPT_MS, q.removeOutboxMessages, q.countOutboxMessages),
  },
  {
    // Its deliveries and their attempts go with it (ON DELETE CASCADE).
    table: "WebhookEvent",
    retention: "30 days after it happened, with its deliveries and their attempts",
    ...olderThan(WEBHOOK_EVENT_KEPT_MS, q.removeWebhookEvents, q.countWebhookEvents),
  },
];

/** The audit log's retention, as `npm run admin -- audit prune` applies it. */
export const AUDIT_RULE = {
  table: "AuditEvent",
  retention: `${AUDIT_RETENTION_DAYS} days`,
  cutoff: (now: Date) => before(now, AUDIT_KEPT_MS),
} as const;
