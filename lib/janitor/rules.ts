import { AUDIT_RETENTION_DAYS } from "../audit/query";
import { sql, SqlFragment } from "../db/sql";

/**
 * What the janitor removes, table by table (docs/operations.md#cleanup-janitor):
 * a row goes only once nothing can use it any more. Each rule is a condition
 * on the table's own expiry column (indexed), with the margin after it that
 * keeps a late Back, reload, mail link or replay answered as it should be.
 */

export const HOUR_MS = 60 * 60_000;
export const DAY_MS = 24 * HOUR_MS;

export interface JanitorRule {
  /** The table, as the schema names it. */
  table: string;
  /** Its primary key column, when it is not `id`. */
  key?: string;
  /** How long a row stays, in words (reports, the admin CLI, the docs). */
  retention: string;
  /** The rows due for removal at `now`, as a condition on the table's rows. */
  due(now: Date): SqlFragment;
}

const before = (now: Date, ms: number) => new Date(now.getTime() - ms);
/** A fixed piece of SQL text (an alias or a column name of the rules below, never input). */
const raw = (text: string) => new SqlFragment([text], []);

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

/** An ingest of the row `row` (an alias) that still moves: its heartbeat is recent. */
const liveIngest = (column: "flowId" | "authorizationId", row: "t" | "f", now: Date) =>
  sql`EXISTS (SELECT 1 FROM "BankIngest" i WHERE i.${raw(`"${column}"`)} = ${raw(row)}."id"
    AND i."state" NOT IN ('done', 'failed') AND i."heartbeatAt" >= ${before(now, INGEST_KEPT_MS)})`;

/** Whether the flow `row` (an alias) is due for removal at `now`. */
const flowDue = (row: "t" | "f", now: Date) => {
  const flow = raw(row);
  return sql`(${flow}."expiresAt" < ${before(now, SIGNED_IN_FLOW_KEPT_MS)}
    OR (${flow}."userId" IS NULL AND ${flow}."expiresAt" < ${before(now, FLOW_KEPT_MS)}))
    AND NOT ${liveIngest("flowId", row, now)}`;
};

export const RULES: readonly JanitorRule[] = [
  {
    table: "Flow",
    retention:
      "7 days after it expired; 30 days when a person signed in to it; never while its bank connection is still being stored",
    due: (now) => flowDue("t", now),
  },
  {
    table: "BankIngest",
    retention:
      "24 hours after its last heartbeat: finished (done or failed) that long ago, or left by a process that died; never one in progress",
    due: (now) => sql`t."heartbeatAt" < ${before(now, INGEST_KEPT_MS)}`,
  },
  {
    // One started by a flow goes with its flow; one started by a person's own key has none.
    table: "BankAuthorization",
    retention:
      "without a flow: 24 hours after it expired, never while its connection is still being stored (one of a flow goes with its flow)",
    due: (
      now,
    ) => sql`t."flowId" IS NULL AND t."expiresAt" < ${before(now, BANK_AUTHORIZATION_KEPT_MS)}
      AND NOT ${liveIngest("authorizationId", "t", now)}`,
  },
  {
    table: "AuthorizationCode",
    retention:
      "24 hours after it expired, once its flow goes too and the key it was exchanged for is revoked or expired (a replay still revokes a live key)",
    due: (now) => sql`t."expiresAt" < ${before(now, AUTHORIZATION_CODE_KEPT_MS)}
      AND (t."flowId" IS NULL
        OR EXISTS (SELECT 1 FROM "Flow" f WHERE f."id" = t."flowId" AND ${flowDue("f", now)}))
      AND NOT EXISTS (SELECT 1 FROM "ApiKey" k WHERE k."id" = t."apiKeyId"
        AND k."revokedAt" IS NULL AND k."expiresAt" > ${now})`,
  },
  {
    table: "LoginChallenge",
    retention: "7 days after it expired (an old mail's link still says it expired)",
    due: (now) => sql`t."expiresAt" < ${before(now, LOGIN_CHALLENGE_KEPT_MS)}`,
  },
  {
    table: "BrowserSession",
    retention: "1 hour after it expired",
    due: (now) => sql`t."expiresAt" < ${before(now, BROWSER_SESSION_KEPT_MS)}`,
  },
  {
    table: "SignInCounter",
    retention: "1 hour after its window ended",
    due: (now) => sql`t."expiresAt" < ${before(now, SIGN_IN_COUNTER_KEPT_MS)}`,
  },
  {
    table: "PinFailure",
    retention: "366 days (the PIN budget counts 365)",
    due: (now) => sql`t."at" < ${before(now, PIN_FAILURE_KEPT_MS)}`,
  },
  {
    table: "PinClosure",
    key: "addressKey",
    retention: "366 days after the closure ended (a closure less than a year old doubles the next)",
    due: (now) => sql`t."closedUntil" < ${before(now, PIN_CLOSURE_KEPT_MS)}`,
  },
  {
    table: "PasskeyChallenge",
    retention: "1 hour after it expired",
    due: (now) => sql`t."expiresAt" < ${before(now, PASSKEY_CHALLENGE_KEPT_MS)}`,
  },
  {
    table: "OutboxMessage",
    retention: "7 days after it was stored",
    due: (now) => sql`t."sentAt" < ${before(now, OUTBOX_KEPT_MS)}`,
  },
  {
    // Its deliveries and their attempts go with it (ON DELETE CASCADE).
    table: "WebhookEvent",
    retention: "30 days after it happened, with its deliveries and their attempts",
    due: (now) => sql`t."createdAt" < ${before(now, WEBHOOK_EVENT_KEPT_MS)}`,
  },
];

/** The audit log's retention, as `npm run admin -- audit prune` applies it. */
export const AUDIT_RULE = {
  table: "AuditEvent",
  retention: `${AUDIT_RETENTION_DAYS} days`,
  cutoff: (now: Date) => before(now, AUDIT_KEPT_MS),
} as const;
