import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import { getEnv } from "../env";
import { SANDBOX_BANKS } from "./sandbox/banks";
import { UpstreamError, type Upstream } from "./types";
import { observeUpstreamCall } from "../metrics";

/**
 * The bank aggregator's calls as metrics (docs/observability.md): each call's
 * time and each failure, by aggregator, operation and bank. The bank is the
 * ASPSP's name only for the banks an operator named in METRICS_BANKS and the
 * sandbox's own fictional ones; every other bank is "other", so the label
 * stays a short, known set whatever banks people pick, and no user data
 * (account uids, session ids, codes) is ever a label.
 */

const OPERATIONS: Record<keyof Omit<Upstream, "name">, string> = {
  listBanks: "list_banks",
  startAuthorization: "start_authorization",
  completeAuthorization: "complete_authorization",
  getBalances: "balances",
  getTransactions: "transactions",
  closeSession: "close_session",
  applicationStatus: "application_status",
};

/** The bank a caller is reading from (forBank), for calls whose arguments do not name it. */
const currentBank = new AsyncLocalStorage<string>();

const SANDBOX_NAMES = new Set(SANDBOX_BANKS.map((bank) => bank.name));

/** The `bank` label: the name of a named bank, "other" for any other, "none" for no bank. */
export function bankLabel(name: string | undefined): string {
  if (!name) return "none";
  if (SANDBOX_NAMES.has(name) || getEnv().metricsBanks.includes(name)) return name;
  return "other";
}

function bankOf(operation: string, args: unknown[]): string | undefined {
  if (operation === "startAuthorization") {
    return (args[0] as { aspsp?: { name?: string } } | undefined)?.aspsp?.name;
  }
  // The bank list and the application's registration are the aggregator's, no one bank's.
  if (operation === "listBanks" || operation === "applicationStatus") return undefined;
  return currentBank.getStore();
}

/** Times every call of an aggregator's client and counts its failures. */
export function measuredUpstream<T extends Upstream>(upstreamName: string, target: T): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      const operation = OPERATIONS[property as keyof typeof OPERATIONS];
      if (!operation) return value;
      return async (...args: unknown[]) => {
        const labels = {
          upstream: upstreamName,
          operation,
          bank: bankLabel(bankOf(property, args)),
        };
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const result: unknown = await (value as (...a: unknown[]) => unknown).apply(object, args);
          observeUpstreamCall(labels, seconds());
          return result;
        } catch (error) {
          const reason =
            error instanceof UpstreamError
              ? error.reason
              : error instanceof Error && error.name === "AbortError"
                ? "aborted"
                : "error";
          observeUpstreamCall(labels, seconds(), reason);
          throw error;
        }
      };
    },
  });
}

/**
 * The same client, its calls counted under `bank` (a connection's ASPSP name):
 * balances, transactions, completing a consent and closing it name no bank in
 * their arguments.
 */
export function forBank<T extends Upstream>(upstream: T, bank: string): T {
  return new Proxy(upstream, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        currentBank.run(bank, () => (value as (...a: unknown[]) => unknown).apply(object, args));
    },
  });
}
