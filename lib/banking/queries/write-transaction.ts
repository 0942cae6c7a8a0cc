import { syncPool, type Prisma } from "../../db/client";
import {
  inTransaction,
  queryIn,
  sql,
  statement,
  statementsIn,
  type TransactionStatements,
} from "../../db/sql";

/**
 * The write transactions of syncs and first histories (lib/banking/write-transaction.ts).
 * Hand-written because the query API cannot say it: a setting local to the
 * transaction (`SET LOCAL`, as `set_config(…, true)`).
 */

/** Runs the declared statements of a write transaction. */
export type RunStatement = TransactionStatements;

/** No statement of the transaction may run longer than `ms` (SET LOCAL statement_timeout). */
const statementTimeout = statement(
  "banking.statementTimeout",
  (ms: string) => sql`SELECT set_config('statement_timeout', ${ms}, true)`,
  [["1000"]],
);

/**
 * A transaction of declared statements on a connection of the sync pool (the
 * bulk writes); before each statement, its timeout becomes `timeLeft()`
 * milliseconds, which may throw to end the transaction.
 */
export function inSyncPoolTransaction<T>(
  timeLeft: () => string,
  work: (run: RunStatement) => Promise<T>,
): Promise<T> {
  return inTransaction(syncPool(), () => statementTimeout(timeLeft()), work);
}

/** Inside an ORM transaction: no later statement of it may run longer than `ms`. */
export async function limitStatementsIn(tx: Prisma.TransactionClient, ms: string): Promise<void> {
  await queryIn(tx, statementTimeout(ms));
}

/** The declared statements run inside an ORM transaction. */
export function statementsOf(tx: Prisma.TransactionClient): RunStatement {
  return statementsIn(tx);
}
