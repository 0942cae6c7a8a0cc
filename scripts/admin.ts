import { MailError } from "../lib/mail/errors";
import { EnvError } from "../lib/env";
import { PartnerError } from "../lib/partners/errors";
import { COMMANDS, type Command } from "./admin/commands";
import { openAdminDatabase } from "./admin/database";
import { parseOptions, UsageError } from "./admin/options";

/**
 * The admin CLI: `npm run admin -- <command> [options]`. Commands live in the
 * table in scripts/admin/commands.ts. Results are pretty JSON on stdout;
 * errors are one line on stderr, never a stack trace. Exit codes:
 * 0 success, 1 refused by the domain (or the database), 2 usage error.
 */

const EXIT = { ok: 0, domain: 1, usage: 2 } as const;

function usageText(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return [
    "usage: npm run admin -- <command> [options]",
    "",
    "commands:",
    ...lines,
    "",
    "  help [command]  show the options of a command",
  ].join("\n");
}

/** The command named by the first words of argv, and the rest of argv. */
function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | null {
  const command = COMMANDS.find((candidate) => {
    const words = candidate.name.split(" ");
    return words.every((word, i) => argv[i] === word);
  });
  return command ? { command, rest: argv.slice(command.name.split(" ").length) } : null;
}

function isHelpRequest(argv: readonly string[]): boolean {
  return argv[0] === "help" || argv.includes("--help") || argv.includes("-h");
}

function printHelp(argv: readonly string[]): void {
  const words = argv.filter((arg) => arg !== "help" && arg !== "--help" && arg !== "-h");
  const found = findCommand(words);
  console.log(
    found
      ? [
          `usage: npm run admin -- ${found.command.usage}`,
          found.command.summary,
          ...(found.command.details ? [found.command.details] : []),
        ].join("\n\n")
      : usageText(),
  );
}

/** One line for stderr; the details of an unexpected error are not shown. */
function toErrorLine(error: unknown): { line: string; exitCode: number } {
  if (error instanceof UsageError) return { line: error.message, exitCode: EXIT.usage };
  if (error instanceof PartnerError) return { line: error.message, exitCode: EXIT.domain };
  if (error instanceof EnvError) return { line: error.problems.join("; "), exitCode: EXIT.domain };
  if (error instanceof MailError) return { line: error.message, exitCode: EXIT.domain };
  const message =
    error instanceof Error ? (error.message.trim().split("\n")[0] ?? "") : String(error);
  return { line: `unexpected error: ${message}`, exitCode: EXIT.domain };
}

async function runCommand(command: Command, rest: string[]): Promise<unknown> {
  // Options are checked before the database is opened: a typo costs nothing.
  const values = parseOptions(rest, command.options);
  const database = await openAdminDatabase((line) => console.error(`admin: ${line}`));
  try {
    return await command.run(values);
  } finally {
    await database.close();
  }
}

async function main(argv: string[]): Promise<number> {
  if (isHelpRequest(argv)) {
    printHelp(argv);
    return EXIT.ok;
  }
  const found = findCommand(argv);
  try {
    if (argv.length === 0) throw new UsageError("a command is required");
    if (!found)
      throw new UsageError(`unknown command ${JSON.stringify(argv.slice(0, 2).join(" "))}`);
    const result = await runCommand(found.command, found.rest);
    console.log(JSON.stringify(result, null, 2));
    return EXIT.ok;
  } catch (error) {
    const { line, exitCode } = toErrorLine(error);
    console.error(`admin: ${line}`);
    if (exitCode === EXIT.usage) {
      console.error(
        found
          ? `usage: npm run admin -- ${found.command.usage}`
          : "run `npm run admin -- help` for the commands",
      );
    }
    return exitCode;
  }
}

process.exit(await main(process.argv.slice(2)));
