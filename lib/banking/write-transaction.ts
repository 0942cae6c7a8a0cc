import { syncDb, type Prisma } from "../db/client";
import { SyncDeadlineError, type SyncDeadline } from "./budget";
import {
  inSyncPoolTransaction,
  limitStatementsIn,
  statementsOf,
  type RunStatement,
} from "./queries/write-transaction";

export { statementsOf, type RunStatement };

/**
 * The write transactions of syncs and of a new consent (docs/ingest.md): each
 * runs on the sync pool, never past its deadline (every statement is bounded
 * by the time left, SET LOCAL statement_timeout), and is rolled back whole
 * when anything fails; past the deadline the error is SyncDeadlineError,
 * whatever failed first.
 */

/**
 * Options of a sync's write transaction: it may wait for a connection of the
 * sync pool as long as any request, and stay open until the deadline.
 */
function syncTransactionOptions(deadline: SyncDeadline) {
  deadline.check();
  return { timeout: deadline.remainingMs() + 1000 };
}

const timeLeft = (deadline: SyncDeadline) => String(Math.max(1, deadline.remainingMs()));

/** No statement of the transaction may run past the deadline (SET LOCAL statement_timeout). */
async function boundByDeadline(tx: Prisma.TransactionClient, deadline: SyncDeadline) {
  deadline.check();
  await limitStatementsIn(tx, timeLeft(deadline));
}

function asDeadlineError(deadline: SyncDeadline, error: unknown): unknown {
  return deadline.expired && !(error instanceof SyncDeadlineError)
    ? new SyncDeadlineError({ cause: error })
    : error;
}

/** A write transaction through the ORM, for the writes that create rows it returns. */
export async function writeWithinDeadline<T>(
  deadline: SyncDeadline,
  write: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  try {
    return await syncDb().$transaction(async (tx) => {
      await boundByDeadline(tx, deadline);
      return write(tx);
    }, syncTransactionOptions(deadline));
  } catch (error) {
    throw asDeadlineError(deadline, error);
  }
}

/**
 * A write transaction of declared statements (lib/banking/queries) on a
 * connection of the sync pool, for the bulk writes: the ORM passes a raw
 * statement's values through JSON on their way to the driver, which for a
 * chunk of 500 sealed transactions costs more CPU than the statement does.
 * Each statement is bounded by the time left before it runs.
 */
export async function writeStatementsWithinDeadline<T>(
  deadline: SyncDeadline,
  write: (run: RunStatement) => Promise<T>,
): Promise<T> {
  deadline.check();
  const beforeEachStatement = () => {
    deadline.check();
    return timeLeft(deadline);
  };
  try {
    return await inSyncPoolTransaction(beforeEachStatement, write);
  } catch (error) {
    throw asDeadlineError(deadline, error);
  }
}
