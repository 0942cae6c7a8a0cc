import { DEFAULT_BATCH_SIZE, janitorStatus, removeExpiredRows } from "../../lib/janitor";
import { optionalTime, wholeNumber } from "./audit-commands";
import type { Command } from "./commands";
import { UsageError, type OptionValues } from "./options";

/**
 * The janitor by hand (docs/operations.md#cleanup-janitor): what is past its
 * retention now, and removing it. The scheduled run does the same.
 */

const MAX_BATCH_SIZE = 100_000;

const AS_OF_HELP = [
  "--as-of <iso-time> applies the retentions as of an earlier time: only what was already due",
  "then counts (a large backlog can be removed oldest first). A time in the future is refused:",
  "it would remove rows still in use.",
].join("\n");

/** The time the retentions count back from: now, or an earlier --as-of. */
function asOf(values: OptionValues): Date {
  const now = new Date();
  const at = optionalTime(values, "as-of");
  if (at && at.getTime() > now.getTime()) {
    throw new UsageError("--as-of must not be in the future");
  }
  return at ?? now;
}

export const JANITOR_COMMANDS: readonly Command[] = [
  {
    name: "janitor status",
    usage: "janitor status [--as-of <iso-time>]",
    summary: "count the rows of each table that are past their retention (what a run would remove)",
    details: AS_OF_HELP,
    options: { "as-of": { type: "string" } },
    async run(values) {
      const at = asOf(values);
      const tables = await janitorStatus(at);
      return {
        as_of: at.toISOString(),
        expired_total: tables.reduce((sum, entry) => sum + entry.expired, 0),
        tables,
      };
    },
  },
  {
    name: "janitor run",
    usage: "janitor run [--batch-size <n>] [--as-of <iso-time>]",
    summary: `remove the rows past their retention, in batches of ${DEFAULT_BATCH_SIZE} unless --batch-size; prints what it removed per table`,
    details: [
      "Each batch is one short statement: safe while the service serves, and from several",
      "machines at once. docs/operations.md lists each table's retention and why.",
      AS_OF_HELP,
    ].join("\n"),
    options: { "batch-size": { type: "string" }, "as-of": { type: "string" } },
    async run(values) {
      const batchSize = wholeNumber(values, "batch-size", DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE);
      const report = await removeExpiredRows({ now: asOf(values), batchSize });
      return {
        started_at: report.startedAt,
        finished_at: report.finishedAt,
        removed_total: report.tables.reduce((sum, entry) => sum + entry.removed, 0),
        tables: report.tables,
      };
    },
  },
];
