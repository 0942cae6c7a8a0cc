import { query, sql, statement, type SqlFragment, type Statement } from "../db/sql";

/**
 * Hand-written because the query API cannot say it (docs/database.md, rule 2):
 * batched deletes (`DELETE … WHERE id IN (SELECT … LIMIT n)`), one per table,
 * each with the count of the same rows (what a run would remove). Every
 * statement takes the cutoffs its table's rule (./rules.ts) computes.
 */

/** At most `batchSize` of the table's rows that meet `due` (on the alias `t`), deleted. */
const removeBatch = (table: SqlFragment, key: SqlFragment, due: SqlFragment, batchSize: number) =>
  sql`WITH gone AS (
      DELETE FROM ${table} WHERE ${key} IN (
        SELECT t.${key} FROM ${table} t WHERE ${due} LIMIT ${batchSize})
      RETURNING 1)
    SELECT count(*)::int AS "removed" FROM gone`;

const countDue = (table: SqlFragment, due: SqlFragment) =>
  sql`SELECT count(*)::int AS "expired" FROM ${table} t WHERE ${due}`;

/** A table's batched delete and count, for the rows `due` picks with the cutoffs `C`. */
function expiry<C>(table: SqlFragment, key: SqlFragment, due: (cutoffs: C) => SqlFragment) {
  return {
    remove: (cutoffs: C, batchSize: number) => removeBatch(table, key, due(cutoffs), batchSize),
    count: (cutoffs: C) => countDue(table, due(cutoffs)),
  };
}

const ID = sql`"id"`;

/** The rows whose column `column` is before `cutoff`. */
const before = (column: SqlFragment) => (cutoff: Date) => sql`t.${column} < ${cutoff}`;

export interface FlowCutoffs {
  /** A flow a person signed in to that expired before this goes. */
  signedIn: Date;
  /** A flow nobody signed in to that expired before this goes. */
  anonymous: Date;
  /** An ingest whose heartbeat is older than this no longer moves. */
  heartbeat: Date;
}

/** An ingest of the row `row` (an alias) that still moves: its heartbeat is recent. */
const liveIngest = (column: SqlFragment, row: SqlFragment, heartbeat: Date) =>
  sql`EXISTS (SELECT 1 FROM "BankIngest" i WHERE i.${column} = ${row}."id"
    AND i."state" NOT IN ('done', 'failed') AND i."heartbeatAt" >= ${heartbeat})`;

/** Whether the flow `row` (an alias) is due for removal. */
const flowDue = (row: SqlFragment, cutoffs: FlowCutoffs) =>
  sql`(${row}."expiresAt" < ${cutoffs.signedIn}
    OR (${row}."userId" IS NULL AND ${row}."expiresAt" < ${cutoffs.anonymous}))
    AND NOT ${liveIngest(sql`"flowId"`, row, cutoffs.heartbeat)}`;

export interface BankAuthorizationCutoffs {
  expired: Date;
  heartbeat: Date;
}

export interface AuthorizationCodeCutoffs {
  expired: Date;
  /** When its flow goes. */
  flow: FlowCutoffs;
  /** A key still live at this time keeps the code it was exchanged for. */
  now: Date;
}

const flows = expiry(sql`"Flow"`, ID, (cutoffs: FlowCutoffs) => flowDue(sql`t`, cutoffs));
const ingests = expiry(sql`"BankIngest"`, ID, before(sql`"heartbeatAt"`));
const bankAuthorizations = expiry(
  sql`"BankAuthorization"`,
  ID,
  (
    cutoffs: BankAuthorizationCutoffs,
  ) => sql`t."flowId" IS NULL AND t."expiresAt" < ${cutoffs.expired}
      AND NOT ${liveIngest(sql`"authorizationId"`, sql`t`, cutoffs.heartbeat)}`,
);
const authorizationCodes = expiry(
  sql`"AuthorizationCode"`,
  ID,
  (cutoffs: AuthorizationCodeCutoffs) => sql`t."expiresAt" < ${cutoffs.expired}
      AND (t."flowId" IS NULL
        OR EXISTS (SELECT 1 FROM "Flow" f WHERE f."id" = t."flowId" AND ${flowDue(sql`f`, cutoffs.flow)}))
      AND NOT EXISTS (SELECT 1 FROM "ApiKey" k WHERE k."id" = t."apiKeyId"
        AND k."revokedAt" IS NULL AND k."expiresAt" > ${cutoffs.now})`,
);
const loginChallenges = expiry(sql`"LoginChallenge"`, ID, before(sql`"expiresAt"`));
const browserSessions = expiry(sql`"BrowserSession"`, ID, before(sql`"expiresAt"`));
const signInCounters = expiry(sql`"SignInCounter"`, ID, before(sql`"expiresAt"`));
const pinFailures = expiry(sql`"PinFailure"`, ID, before(sql`"at"`));
const pinClosures = expiry(sql`"PinClosure"`, sql`"addressKey"`, before(sql`"closedUntil"`));
const passkeyChallenges = expiry(sql`"PasskeyChallenge"`, ID, before(sql`"expiresAt"`));
const outboxMessages = expiry(sql`"OutboxMessage"`, ID, before(sql`"sentAt"`));
const webhookEvents = expiry(sql`"WebhookEvent"`, ID, before(sql`"createdAt"`));

const AT = new Date("2026-01-01T00:00:00Z");
const FLOW: FlowCutoffs = { signedIn: AT, anonymous: AT, heartbeat: AT };
const BATCH = 1000;

export const removeFlows = statement("janitor.removeFlows", flows.remove, [[FLOW, BATCH]]);
export const countFlows = statement("janitor.countFlows", flows.count, [[FLOW]]);
export const removeIngests = statement("janitor.removeIngests", ingests.remove, [[AT, BATCH]]);
export const countIngests = statement("janitor.countIngests", ingests.count, [[AT]]);
export const removeBankAuthorizations = statement(
  "janitor.removeBankAuthorizations",
  bankAuthorizations.remove,
  [[{ expired: AT, heartbeat: AT }, BATCH]],
);
export const countBankAuthorizations = statement(
  "janitor.countBankAuthorizations",
  bankAuthorizations.count,
  [[{ expired: AT, heartbeat: AT }]],
);
export const removeAuthorizationCodes = statement(
  "janitor.removeAuthorizationCodes",
  authorizationCodes.remove,
  [[{ expired: AT, flow: FLOW, now: AT }, BATCH]],
);
export const countAuthorizationCodes = statement(
  "janitor.countAuthorizationCodes",
  authorizationCodes.count,
  [[{ expired: AT, flow: FLOW, now: AT }]],
);
export const removeLoginChallenges = statement(
  "janitor.removeLoginChallenges",
  loginChallenges.remove,
  [[AT, BATCH]],
);
export const countLoginChallenges = statement(
  "janitor.countLoginChallenges",
  loginChallenges.count,
  [[AT]],
);
export const removeBrowserSessions = statement(
  "janitor.removeBrowserSessions",
  browserSessions.remove,
  [[AT, BATCH]],
);
export const countBrowserSessions = statement(
  "janitor.countBrowserSessions",
  browserSessions.count,
  [[AT]],
);
export const removeSignInCounters = statement(
  "janitor.removeSignInCounters",
  signInCounters.remove,
  [[AT, BATCH]],
);
export const countSignInCounters = statement("janitor.countSignInCounters", signInCounters.count, [
  [AT],
]);
export const removePinFailures = statement("janitor.removePinFailures", pinFailures.remove, [
  [AT, BATCH],
]);
export const countPinFailures = statement("janitor.countPinFailures", pinFailures.count, [[AT]]);
export const removePinClosures = statement("janitor.removePinClosures", pinClosures.remove, [
  [AT, BATCH],
]);
export const countPinClosures = statement("janitor.countPinClosures", pinClosures.count, [[AT]]);
export const removePasskeyChallenges = statement(
  "janitor.removePasskeyChallenges",
  passkeyChallenges.remove,
  [[AT, BATCH]],
);
export const countPasskeyChallenges = statement(
  "janitor.countPasskeyChallenges",
  passkeyChallenges.count,
  [[AT]],
);
export const removeOutboxMessages = statement(
  "janitor.removeOutboxMessages",
  outboxMessages.remove,
  [[AT, BATCH]],
);
export const countOutboxMessages = statement("janitor.countOutboxMessages", outboxMessages.count, [
  [AT],
]);
export const removeWebhookEvents = statement("janitor.removeWebhookEvents", webhookEvents.remove, [
  [AT, BATCH],
]);
export const countWebhookEvents = statement("janitor.countWebhookEvents", webhookEvents.count, [
  [AT],
]);

/** Runs one batch of a table's delete; returns how many rows it removed. */
export async function runRemoval(removal: Statement): Promise<number> {
  const [row] = await query<{ removed: number }>(removal);
  return row?.removed ?? 0;
}

/** Runs a table's count; returns how many rows are due. */
export async function runCount(count: Statement): Promise<number> {
  const [row] = await query<{ expired: number }>(count);
  return row?.expired ?? 0;
}
