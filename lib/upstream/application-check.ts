import { getEnv } from "../env";
import { log } from "../log";
import { upstream as configuredUpstream } from "./index";
import { UpstreamError, type Upstream, type UpstreamName } from "./types";

/**
 * Whether the service's application at the aggregator is set up so that
 * consents can start (docs/production.md#the-enable-banking-application):
 * Enable Banking sends the browser back from a consent only to a redirect URL
 * registered with the application, and this service always asks for
 * `{ISSUER}/banks/callback`; without it every consent start fails. Read from
 * Enable Banking's `GET /application` (`active`, `redirect_urls`).
 *
 * Checked at start and again every CHECK_INTERVAL_MS while /healthz is read;
 * a problem is logged as a warning and listed in /healthz's `warnings`
 * without making the service unready: syncs and the data API still work, and
 * only the operator can fix it. `npm run admin -- bank check` asks at once.
 */

export const CALLBACK_PATH = "/banks/callback";

export type BankApplicationProblem = "callback_not_registered" | "application_inactive";

export interface BankApplicationCheck {
  upstream: UpstreamName;
  checkedAt: Date;
  /** The redirect URL consents use: `{ISSUER}/banks/callback`. */
  callbackUrl: string;
  /** Null when the aggregator could not be asked. */
  active: boolean | null;
  /**
   * The redirect URLs registered with the application; null when the upstream has no such
   * registration (the sandbox), refused the application, or could not be asked.
   */
  redirectUrls: string[] | null;
  /** Null when that cannot be told (see `redirectUrls`). */
  callbackRegistered: boolean | null;
  problems: BankApplicationProblem[];
  /** Why the aggregator could not be asked (a sync reason such as `transient`); else null. */
  unreachable: string | null;
}

/** Asks the aggregator now. Never throws for the aggregator's failures: see `unreachable`. */
export async function checkBankApplication(
  bank: Upstream = configuredUpstream(),
  issuer: string = getEnv().issuer,
): Promise<BankApplicationCheck> {
  const callbackUrl = `${issuer.replace(/\/+$/, "")}${CALLBACK_PATH}`;
  const base = { upstream: bank.name, checkedAt: new Date(), callbackUrl };
  let status: Awaited<ReturnType<Upstream["applicationStatus"]>>;
  try {
    status = await bank.applicationStatus();
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    return {
      ...base,
      active: null,
      redirectUrls: null,
      callbackRegistered: null,
      problems: [],
      unreachable: error.reason,
    };
  }
  // Enable Banking sends the browser only to a registered URL, exactly as registered.
  const callbackRegistered = status.redirectUrls
    ? status.redirectUrls.some((url) => url.trim() === callbackUrl)
    : null;
  const problems: BankApplicationProblem[] = [
    ...(status.active ? [] : ["application_inactive" as const]),
    ...(callbackRegistered === false ? ["callback_not_registered" as const] : []),
  ];
  return {
    ...base,
    active: status.active,
    redirectUrls: status.redirectUrls,
    callbackRegistered,
    problems,
    unreachable: null,
  };
}

/** What an operator is told to do about each problem. */
export function problemAdvice(check: BankApplicationCheck, problem: BankApplicationProblem) {
  switch (problem) {
    case "callback_not_registered":
      return `register ${check.callbackUrl} as a redirect URL of the Enable Banking application: until then every consent start fails`;
    case "application_inactive":
      return "the Enable Banking application is not active (or refused the application's key): no bank data can be read until it is";
  }
}

/** How old a check may be before /healthz starts the next one. */
export const CHECK_INTERVAL_MS = 10 * 60 * 1000;
/** After the aggregator could not be asked, sooner. */
const RETRY_INTERVAL_MS = 60 * 1000;

/** /healthz `warnings`, per problem. */
const WARNINGS: Record<BankApplicationProblem, string> = {
  callback_not_registered: "bank_callback_not_registered",
  application_inactive: "bank_application_inactive",
};

interface CheckState {
  /** The last answer the aggregator gave (a failed ask keeps the one before). */
  latest: BankApplicationCheck | null;
  lastAttemptAt: number;
  /** The last ask got no answer: the next one comes sooner. */
  lastUnanswered: boolean;
  running: Promise<void> | null;
}

// On globalThis: the service's HTTP server and Next's bundle each load this module.
const holder = globalThis as { bankConnectApplicationCheck?: CheckState };

/**
 * At start, with Enable Banking as the upstream: checks once in the
 * background (the start does not wait for the aggregator) and logs what it finds.
 */
export function startBankApplicationChecks(): void {
  if (getEnv().upstream !== "enablebanking") return;
  holder.bankConnectApplicationCheck ??= {
    latest: null,
    lastAttemptAt: 0,
    lastUnanswered: false,
    running: null,
  };
  runCheck(holder.bankConnectApplicationCheck);
}

function runCheck(state: CheckState): void {
  if (state.running) return;
  state.lastAttemptAt = Date.now();
  state.running = (async () => {
    try {
      const check = await checkBankApplication();
      state.lastUnanswered = check.unreachable !== null;
      if (check.unreachable) {
        log.warn("bank_application.unchecked", { reason: check.unreachable });
        return;
      }
      const before = state.latest?.problems.join(",");
      state.latest = check;
      if (before === check.problems.join(",")) return;
      for (const problem of check.problems) {
        log.warn(`bank_application.${problem}`, {
          callbackUrl: check.callbackUrl,
          registeredRedirectUrls: check.redirectUrls,
          advice: problemAdvice(check, problem),
        });
      }
      if (check.problems.length === 0) {
        log.info("bank_application.ready", { callbackUrl: check.callbackUrl });
      }
    } catch (error) {
      state.lastUnanswered = true;
      log.error("bank_application.check_failed", { error });
    } finally {
      state.running = null;
    }
  })();
}

/**
 * The warnings for /healthz from the last check; starts the next check in the
 * background once the last one is old. Empty when no check was started.
 */
export function bankApplicationWarnings(now = Date.now()): string[] {
  const state = holder.bankConnectApplicationCheck;
  if (!state) return [];
  const interval = state.lastUnanswered ? RETRY_INTERVAL_MS : CHECK_INTERVAL_MS;
  if (now - state.lastAttemptAt >= interval) runCheck(state);
  return (state.latest?.problems ?? []).map((problem) => WARNINGS[problem]);
}

/** Resolves when the check running now (if any) has ended (tests). */
export async function bankApplicationCheckSettled(): Promise<void> {
  await holder.bankConnectApplicationCheck?.running;
}

/** Forgets every check (tests). */
export function resetBankApplicationChecks(): void {
  delete holder.bankConnectApplicationCheck;
}
