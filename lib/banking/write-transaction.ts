import type pg from "pg";
import { syncDb, syncPool, type Prisma } from "../db/client";
import { SyncDeadlineError, type SyncDeadline } from "./budget";

/**
 * The write transactions of syncs and of a new consent (docs/ingest.md): each
 * runs on the sync pool, never past its deadline (every statement is bounded
 * by the time left, SET LOCAL statement_timeout), and is rolled back whole
 * when anything fails; past the deadline the error is SyncDeadlineError,
 * whatever failed first.
 */

/**
 * Runs one statement of a write transaction (bound parameters, never
 * spliced) and resolves with the number of rows it changed. `Date` values
 * are passed as UTC (the columns are `timestamp(3)` holding UTC).
 */
export interface RunStatement {
  (text: string, values: readonly unknown[]): Promise<number>;
  /** The same for a statement that returns rows. */
  rows<Row>(text: string, values: readonly unknown[]): Promise<Row[]>;
}

const toParameter = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * Options of a sync's write transaction: it may wait for a connection of the
 * sync pool as long as any request, and stay open until the deadline.
 */
function syncTransactionOptions(deadline: SyncDeadline) {
  deadline.check();
  return { timeout: deadline.remainingMs() + 1000 };
}

const timeLeft = (deadline: SyncDeadline) => String(Math.max(1, deadline.remainingMs()));
const BOUND_STATEMENT = "SELECT set_config('statement_timeout', $1, true)";

/** No statement of the transaction may run past the deadline (SET LOCAL statement_timeout). */
async function boundByDeadline(tx: Prisma.TransactionClient, deadline: SyncDeadline) {
  deadline.check();
  await tx.$queryRawUnsafe(BOUND_STATEMENT, timeLeft(deadline));
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

/** The same statements run inside an ORM transaction. */
export function statementsOf(tx: Prisma.TransactionClient): RunStatement {
  const run = (text: string, values: readonly unknown[]) =>
    tx.$executeRawUnsafe(text, ...values.map(toParameter));
  return Object.assign(run, {
    rows: <Row>(text: string, values: readonly unknown[]) =>
      tx.$queryRawUnsafe<Row[]>(text, ...values.map(toParameter)),
  });
}

/**
 * A write transaction of hand-written statements on a connection of the
 * sync pool, for the bulk writes: the ORM passes a raw statement's values
 * through JSON on their way to the driver, which for a chunk of 500 sealed
 * transactions costs more CPU than the statement does. Each statement is
 * bounded by the time left before it runs.
 */
export async function writeStatementsWithinDeadline<T>(
  deadline: SyncDeadline,
  write: (run: RunStatement) => Promise<T>,
): Promise<T> {
  deadline.check();
  let client: pg.PoolClient;
  try {
    client = await syncPool().connect();
  } catch (error) {
    throw asDeadlineError(deadline, error);
  }
  // A connection that was cut, or whose rollback failed, is closed rather than handed out again.
  let broken: Error | boolean = false;
  // A cut while checked out is reported to the statement under way and as an
  // event, which must not be thrown out of the process.
  const lost = (error: Error) => (broken = error);
  client.on("error", lost);
  try {
    await client.query("BEGIN");
    const query = async (text: string, values: readonly unknown[]) => {
      deadline.check();
      await client.query(BOUND_STATEMENT, [timeLeft(deadline)]);
      return client.query(text, values.map(toParameter));
    };
    const run: RunStatement = Object.assign(
      async (text: string, values: readonly unknown[]) => (await query(text, values)).rowCount ?? 0,
      {
        rows: async <Row>(text: string, values: readonly unknown[]) =>
          (await query(text, values)).rows as Row[],
      },
    );
    const result = await write(run);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch((cause: unknown) => {
      broken = cause instanceof Error ? cause : true;
    });
    throw asDeadlineError(deadline, error);
  } finally {
    client.off("error", lost);
    client.release(broken);
  }
}
