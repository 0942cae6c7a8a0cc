import { parseArgs, type ParseArgsConfig } from "node:util";

export type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/**
 * Option parsing for the admin CLI: node:util parseArgs in strict mode, plus
 * the rule that a single-valued option may not be given twice (docs/architecture.md#parse-dont-validate:
 * reject duplicate parameters rather than silently keep the last one).
 */

/** A mistake in how the command was typed: exit code 2, with the usage line. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export function parseOptions(args: string[], options: OptionsConfig): OptionValues {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: false, tokens: true });
  } catch (error) {
    if (isParseArgsError(error))
      throw new UsageError(error.message.split("\n")[0] ?? error.message);
    throw error;
  }
  assertNoRepeatedOption(parsed.tokens, options);
  return parsed.values as OptionValues;
}

function assertNoRepeatedOption(
  tokens: readonly { kind: string; name?: string }[],
  options: OptionsConfig,
): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.name === undefined) continue;
    if (seen.has(token.name) && !options[token.name]?.multiple) {
      throw new UsageError(`--${token.name} may be given only once`);
    }
    seen.add(token.name);
  }
}

function isParseArgsError(error: unknown): error is Error {
  const code: unknown = error instanceof Error ? Reflect.get(error, "code") : undefined;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

export function requireString(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== "string") throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/** A `multiple: true` option that must be given at least once. */
export function requireList(values: OptionValues, name: string): string[] {
  const value = values[name];
  if (!Array.isArray(value) || value.length === 0) {
    throw new UsageError(`at least one --${name} is required`);
  }
  return value;
}
