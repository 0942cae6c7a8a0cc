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
import { createBankLists } from "./bank-lists";
import { createEnableBankingClient } from "./client";
import { toUnexpectedBodyError } from "./errors";
import { toAspsp, toUpstreamBalance, toUpstreamSession } from "./mapping";
import { toUpstreamTransactionsInSlices } from "./transactions";
import {
  applicationResponseSchema,
  aspspListSchema,
  authResponseSchema,
  balancesResponseSchema,
  parseWire,
  sessionResponseSchema,
  transactionsResponseSchema,
} from "./wire";

/**
 * The Enable Banking connector (docs/architecture.md#upstream-aggregators): the real upstream, at
 * `ENABLE_BANKING_API_URL`, as the application `ENABLE_BANKING_APPLICATION_ID`
 * signing with `ENABLE_BANKING_PRIVATE_KEY`. Stateless apart from its cached
 * JWT and bank lists; every failure is an `UpstreamError` with a sync reason (errors.ts).
 */

export interface EnableBankingOptions {
  apiUrl: string;
  applicationId: string;
  /** PKCS#8 PEM. */
  privateKey: string;
  /** Per request, including reading the body. Default 20 s. */
  timeoutMs?: number;
  /** Of each signed JWT; at most 24 h. Default 1 h. */
  jwtLifetimeSeconds?: number;
  /** The clock for JWT times, `Retry-After` dates and the bank lists' lifetime. */
  now?: () => Date;
}

const ROUTES = {
  application: "GET /application",
  aspsps: "GET /aspsps",
  auth: "POST /auth",
  createSession: "POST /sessions",
  deleteSession: "DELETE /sessions/{id}",
  balances: "GET /accounts/{uid}/balances",
  transactions: "GET /accounts/{uid}/transactions",
} as const;

/** A reason that means the session is over at the bank already. */
const SESSION_ENDED = new Set(["reconnect_needed", "consent_withdrawn"]);

export function enableBankingUpstream(options: EnableBankingOptions): Upstream {
  const now = options.now ?? (() => new Date());
  const client = createEnableBankingClient({ ...options, now });
  const accountPath = (uid: string, what: string) => `/accounts/${encodeURIComponent(uid)}/${what}`;
  // Kept for hours and refreshed in the background (bank-lists.ts): a picker's page load
  // does not wait for Enable Banking's whole list.
  const bankLists = createBankLists(
    async (country, signal) => {
      const body = await client.request({
        method: "GET",
        route: ROUTES.aspsps,
        path: "/aspsps",
        query: { country: country || undefined },
        signal,
      });
      return parseWire(aspspListSchema, body, ROUTES.aspsps).aspsps.map(toAspsp);
    },
    { now },
  );

  return {
    name: "enablebanking",

    async listBanks(filter = {}): Promise<Aspsp[]> {
      return bankLists.get(filter.country?.trim().toUpperCase() ?? "");
    },

    async startAuthorization(input: StartAuthorizationInput) {
      const body = await client.request({
        method: "POST",
        route: ROUTES.auth,
        path: "/auth",
        body: {
          access: { valid_until: input.validUntil.toISOString() },
          aspsp: { name: input.aspsp.name, country: input.aspsp.country },
          state: input.state,
          redirect_url: input.redirectUrl,
          psu_type: input.psuType,
          language: input.language,
        },
      });
      const answer = parseWire(authResponseSchema, body, ROUTES.auth);
      return { url: answer.url, authorizationId: answer.authorization_id };
    },

    async completeAuthorization({ code }): Promise<UpstreamSession> {
      const body = await client.request({
        method: "POST",
        route: ROUTES.createSession,
        path: "/sessions",
        body: { code },
      });
      const session = toUpstreamSession(
        parseWire(sessionResponseSchema, body, ROUTES.createSession),
      );
      if (!session) throw toUnexpectedBodyError(ROUTES.createSession, "psu_type or access");
      return session;
    },

    async getBalances(accountUid: string, read?: UpstreamReadOptions): Promise<UpstreamBalance[]> {
      const body = await client.request({
        method: "GET",
        route: ROUTES.balances,
        path: accountPath(accountUid, "balances"),
        psuHeaders: read?.psuHeaders,
        signal: read?.signal,
      });
      return parseWire(balancesResponseSchema, body, ROUTES.balances).balances.map(
        toUpstreamBalance,
      );
    },

    async getTransactions(
      accountUid: string,
      query: TransactionQuery,
      read?: UpstreamReadOptions,
    ): Promise<TransactionPage> {
      const body = await client.request({
        method: "GET",
        route: ROUTES.transactions,
        path: accountPath(accountUid, "transactions"),
        // `strategy=longest` lets the bank choose how far back to go; a date would narrow it.
        query: {
          strategy: query.strategy,
          date_from: query.strategy === "longest" ? undefined : query.dateFrom,
          date_to: query.dateTo,
          continuation_key: query.continuationKey || undefined,
        },
        psuHeaders: read?.psuHeaders,
        signal: read?.signal,
      });
      const page = parseWire(transactionsResponseSchema, body, ROUTES.transactions);
      return {
        transactions: await toUpstreamTransactionsInSlices(page.transactions, ROUTES.transactions),
        continuationKey: page.continuation_key || null,
      };
    },

    async closeSession(sessionId: string): Promise<void> {
      try {
        await client.request({
          method: "DELETE",
          route: ROUTES.deleteSession,
          path: `/sessions/${encodeURIComponent(sessionId)}`,
        });
      } catch (error) {
        // Closing is idempotent: a session that expired, was closed or was
        // revoked at the bank has ended, which is what was asked.
        if (error instanceof UpstreamError && SESSION_ENDED.has(error.reason)) return;
        throw error;
      }
    },

    async applicationStatus() {
      try {
        const body = await client.request({
          method: "GET",
          route: ROUTES.application,
          path: "/application",
        });
        const application = parseWire(applicationResponseSchema, body, ROUTES.application);
        return {
          active: application.active === true,
          redirectUrls: (application.redirect_urls ?? []).filter((url) => typeof url === "string"),
        };
      } catch (error) {
        // Enable Banking refusing the application's own JWT is an answer too: not active.
        if (error instanceof UpstreamError && error.reason === "partner_app_inactive") {
          return { active: false, redirectUrls: null };
        }
        throw error;
      }
    },
  };
}
