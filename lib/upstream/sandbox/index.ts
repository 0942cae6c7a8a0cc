import { createHash, randomBytes } from "node:crypto";
import { timingSafeEqualString } from "../../crypto/constant-time";
import { getEnv } from "../../env";
import {
  UpstreamError,
  type Aspsp,
  type StartAuthorizationInput,
  type TransactionPage,
  type TransactionQuery,
  type Upstream,
  type UpstreamBalance,
  type UpstreamReadOptions,
  type UpstreamSession,
} from "../types";
import {
  findSandboxAccount,
  toSandboxAccounts,
  toUpstreamAccount,
  type SandboxAccount,
} from "./accounts";
import { findSandboxBank, findSandboxBankById, SANDBOX_BANKS, toAspsp } from "./banks";
import { DAY_MS, parseIsoDay, toDayNumber, toIsoDay } from "./calendar";
import { balancesOf } from "./ledger";
import { findSandboxToken, signSandboxToken } from "./tokens";
import { missingPsuHeaders } from "../psu-headers";
import { heldByPending, pendingTransactions } from "./pending";
import { MAX_HISTORY_DAYS, pageOfTransactions, toUpstreamTransaction } from "./transactions";

/**
 * The sandbox aggregator (docs/architecture.md#upstream-aggregators): the default upstream. It behaves
 * like Enable Banking (a consent page to send the browser to, a code back on
 * the redirect, a session with accounts, paged transactions) and keeps no
 * state: every id it hands out is a signed token (tokens.ts), and every
 * account's data is a pure function of its uid and the day (ledger.ts).
 */

/** How long the bank's consent page accepts a decision. */
export const SANDBOX_AUTHORIZATION_LIFETIME_MS = 30 * 60 * 1000;
/** How long the code on the redirect back may be exchanged for a session. */
export const SANDBOX_CODE_LIFETIME_MS = 10 * 60 * 1000;
/** A scenario bank serves normally this long after the consent, then fails every read. */
export const SANDBOX_SCENARIO_GRACE_MS = 60 * 1000;

export interface SandboxOptions {
  /** The sandbox's clock: "today" for balances and the newest transactions. */
  now?: () => Date;
  /** Where the bank's consent page is served (this app). */
  baseUrl?: string;
}

function unknownBank(aspsp: { name: string; country: string }): UpstreamError {
  return new UpstreamError("bank_error", `no sandbox bank ${aspsp.country}/${aspsp.name}`, {
    bankErrorCode: "ASPSP_NOT_FOUND",
  });
}

function expiredSession(): UpstreamError {
  return new UpstreamError("reconnect_needed", "the sandbox consent has expired", {
    bankErrorCode: "EXPIRED_SESSION",
  });
}

/** A digest of the account uid that a continuation key is bound to. */
const accountDigest = (uid: string) =>
  createHash("sha256").update(uid).digest("base64url").slice(0, 22);

export function sandboxUpstream(options: SandboxOptions = {}): Upstream {
  const now = options.now ?? (() => new Date());
  const baseUrl = () => options.baseUrl ?? getEnv().issuer;

  function accountOf(uid: string, options: UpstreamReadOptions = {}): SandboxAccount {
    const account = findSandboxAccount(uid);
    if (!account) {
      throw new UpstreamError("reconnect_needed", "not a sandbox account uid", {
        bankErrorCode: "WRONG_ACCOUNT_ID",
      });
    }
    if (account.claims.validUntil <= now().getTime()) throw expiredSession();
    const scenario = account.bank.scenario;
    const connectedAt = account.claims.connectedAt ?? 0;
    const armed = now().getTime() >= connectedAt + SANDBOX_SCENARIO_GRACE_MS;
    const psuPresent = Boolean(options.psuHeaders?.["Psu-Ip-Address"]);
    // As Enable Banking: a read with the holder present must carry every header the bank requires.
    const missing = missingPsuHeaders(account.bank.requiredPsuHeaders ?? [], options.psuHeaders);
    if (psuPresent && missing.length > 0) {
      throw new UpstreamError("psu_headers_missing", `sandbox bank ${account.bank.id}`, {
        bankErrorCode: "PSU_HEADER_NOT_PROVIDED",
      });
    }
    if (scenario && armed && !(scenario.unlessPsuPresent && psuPresent)) {
      throw new UpstreamError(scenario.reason, `sandbox scenario ${account.bank.id}`, {
        bankErrorCode: scenario.bankErrorCode,
        retryAfterSeconds: scenario.retryAfterSeconds,
      });
    }
    return account;
  }

  function windowOf(query: TransactionQuery): { from: number; to: number } {
    const today = toDayNumber(now());
    const from = parseIsoDay(query.dateFrom);
    const to = query.dateTo === undefined ? today : parseIsoDay(query.dateTo);
    if (from === null || to === null || from > to) {
      throw new UpstreamError("bank_error", "the transaction period is not valid", {
        bankErrorCode: "WRONG_TRANSACTIONS_PERIOD",
      });
    }
    // The bank keeps two years and knows nothing of tomorrow.
    return { from: Math.max(from, today - MAX_HISTORY_DAYS), to: Math.min(to, today) };
  }

  return {
    name: "sandbox",

    async listBanks(filter = {}): Promise<Aspsp[]> {
      const country = filter.country?.toUpperCase();
      return SANDBOX_BANKS.filter((bank) => !country || bank.country === country).map(toAspsp);
    },

    async startAuthorization(input: StartAuthorizationInput) {
      const bank = findSandboxBank(input.aspsp);
      if (!bank) throw unknownBank(input.aspsp);
      if (!bank.psuTypes.includes(input.psuType)) {
        throw new UpstreamError("bank_error", `${bank.id} does not serve ${input.psuType}`, {
          bankErrorCode: "WRONG_PSU_TYPE",
        });
      }
      const issuedAt = now().getTime();
      const longest =
        issuedAt +
        (bank.consentMinutes ? bank.consentMinutes * 60_000 : bank.maxConsentDays * DAY_MS);
      const authorizationId = signSandboxToken("authorization", {
        nonce: input.psuId
          ? createHash("sha256")
              .update(`${input.psuId}|${bank.id}|${input.psuType}`)
              .digest("base64url")
              .slice(0, 22)
          : randomBytes(16).toString("base64url"),
        bank: bank.id,
        psuType: input.psuType,
        validUntil: Math.min(input.validUntil.getTime(), longest),
        redirectUrl: input.redirectUrl,
        state: input.state,
        language: input.language,
        issuedAt,
        expiresAt: issuedAt + SANDBOX_AUTHORIZATION_LIFETIME_MS,
      });
      const url = new URL("/sandbox/authorize", baseUrl());
      url.searchParams.set("authorization", authorizationId);
      return { url: url.href, authorizationId };
    },

    async completeAuthorization({ code }): Promise<UpstreamSession> {
      const claims = findSandboxToken("code", code);
      if (!claims || claims.expiresAt <= now().getTime()) {
        throw new UpstreamError("bank_error", "the sandbox authorization code is not valid", {
          bankErrorCode: "WRONG_AUTHORIZATION_CODE",
        });
      }
      const bank = findSandboxBankById(claims.bank);
      if (!bank) throw unknownBank({ name: claims.bank, country: "" });
      const session = {
        nonce: claims.nonce,
        bank: claims.bank,
        psuType: claims.psuType,
        validUntil: claims.validUntil,
        issuedAt: now().getTime(),
      };
      return {
        sessionId: signSandboxToken("session", session),
        aspsp: { name: bank.name, country: bank.country },
        psuType: claims.psuType,
        validUntil: new Date(claims.validUntil),
        accounts: toSandboxAccounts(session).map(toUpstreamAccount),
      };
    },

    async getBalances(accountUid, options): Promise<UpstreamBalance[]> {
      const account = accountOf(accountUid, options);
      const today = toDayNumber(now());
      const held = account.bank.pendingCardPayments ? heldByPending(account, today) : undefined;
      return balancesOf(account, today, held);
    },

    async getTransactions(accountUid, query, options): Promise<TransactionPage> {
      const account = accountOf(accountUid, options);
      const requested = windowOf(query);
      let window = requested;
      let cursor = { day: requested.to, skip: 0 };
      if (query.continuationKey !== undefined) {
        const page = findSandboxToken("page", query.continuationKey);
        if (
          !page ||
          !timingSafeEqualString(page.account, accountDigest(accountUid)) ||
          page.dateFrom !== query.dateFrom
        ) {
          throw new UpstreamError("bank_error", "the continuation key is not valid", {
            bankErrorCode: "WRONG_CONTINUATION_KEY",
          });
        }
        // The window's end is pinned by the first page, so that paging is stable.
        const to = parseIsoDay(page.dateTo) ?? requested.to;
        const day = parseIsoDay(page.cursorDay) ?? to;
        window = { from: requested.from, to };
        cursor = { day, skip: page.skip };
      }
      const { entries, next } = pageOfTransactions(account, window, cursor);
      const transactions = entries.map((entry) => toUpstreamTransaction(account, entry));
      // A bank with pending card payments lists them after the booked entries (pending.ts).
      if (!next && account.bank.pendingCardPayments) {
        transactions.push(...pendingTransactions(account, window, toDayNumber(now())));
      }
      return {
        transactions,
        continuationKey: next
          ? signSandboxToken("page", {
              account: accountDigest(accountUid),
              dateFrom: query.dateFrom,
              dateTo: toIsoDay(window.to),
              cursorDay: toIsoDay(next.day),
              skip: next.skip,
            })
          : null,
      };
    },

    async closeSession(sessionId: string): Promise<void> {
      if (!findSandboxToken("session", sessionId)) {
        throw new UpstreamError("bank_error", "not a sandbox session", {
          bankErrorCode: "WRONG_SESSION_ID",
        });
      }
    },

    async applicationStatus() {
      // The sandbox's consent page is this service's own: there is no redirect URL to register.
      return { active: true, redirectUrls: null };
    },
  };
}
