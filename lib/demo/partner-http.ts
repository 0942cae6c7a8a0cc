import { getEnv } from "../env";
import { basicAuthorization, maskSecret, trimSlashes } from "./protocol";
import { DEMO_CLIENT_ID, demoClientSecret, demoRedirectUri } from "./secrets";

/**
 * The demo partner's HTTP calls to the service's public endpoints, in the
 * published SDKs' shapes (/docs/token, /docs/data). Each call also returns
 * the line the demo page shows for it, so a developer sees every request.
 */

const USER_AGENT = "bank-connect-demo-partner/1.0";
const TIMEOUT_MS = 30_000;

/** Values a step's message takes: names of masked secrets, counts, addresses. */
export type StepValues = Record<string, string | number>;

export interface DemoStep {
  /** The line in English, as written; also what a row from before `key` existed shows. */
  label: string;
  detail: string;
  ok: boolean;
  /** The label's and the detail's message (`Demo.steps.*`), for the page's language. */
  labelKey?: string;
  detailKey?: string;
  values?: StepValues;
}

export interface Called<T> {
  status: number;
  body: T | null;
  /** A refusal's OAuth error code and description (RFC 6750 §3.1), when it has them. */
  error: { code: string; description: string } | null;
  step: DemoStep;
}

/** The `error` and `error_description` of a refusal's JSON body, if it is one. */
function readError(text: string): Called<unknown>["error"] {
  try {
    const parsed = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof parsed.error !== "string") return null;
    const description =
      typeof parsed.error_description === "string" ? parsed.error_description : "";
    return { code: parsed.error, description };
  } catch {
    return null;
  }
}

async function call<T>(
  method: "GET" | "POST",
  path: string,
  init: {
    headers?: Record<string, string>;
    body?: string;
    describe?: (body: T) => string;
    /** The detail's message and its values, for the page's language. */
    detailKey?: (body: T) => { key: string; values: StepValues };
  },
): Promise<Called<T>> {
  const label = `${method} ${path.split("?")[0]}`;
  try {
    const response = await fetch(`${trimSlashes(getEnv().issuer)}${path}`, {
      method,
      headers: { "User-Agent": USER_AGENT, ...init.headers },
      body: init.body,
      redirect: "manual",
      cache: "no-store",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await response.text();
    let body: T | null = null;
    try {
      body = text ? (JSON.parse(text) as T) : null;
    } catch {
      body = null;
    }
    const described = response.ok && body !== null;
    const detail = described && init.describe ? init.describe(body as T) : text.slice(0, 200);
    const translated = described && init.detailKey ? init.detailKey(body as T) : null;
    return {
      status: response.status,
      body: response.ok ? body : null,
      error: response.ok ? null : readError(text),
      step: {
        label: `${label} → ${response.status}`,
        detail,
        ok: response.ok,
        ...(translated ? { detailKey: translated.key, values: translated.values } : {}),
      },
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      status: 0,
      body: null,
      error: null,
      step: { label: `${label} → failed`, detail: message, ok: false },
    };
  }
}

const apiHeaders = (apiKey: string) => ({ "X-Api-Key": apiKey, Accept: "application/json" });

/** The discovery document; its `issuer` is what `iss` must equal (RFC 8414; /docs). */
export function discover() {
  return call<{ issuer?: unknown }>("GET", "/.well-known/oauth-authorization-server", {
    headers: { Accept: "application/json" },
    describe: (body) => `issuer = ${String(body.issuer)}`,
  });
}

export interface TokenResponse {
  access_token?: string;
  apiKey?: string;
  user?: string;
  scope?: string;
  expires_in?: number;
}

/** The demo client's Basic credentials; the secret is the one the seed sealed for the demo. */
async function clientAuthorization(): Promise<string | null> {
  const secret = await demoClientSecret();
  return secret ? basicAuthorization(DEMO_CLIENT_ID, secret) : null;
}

/** The call not made: the seed has not given the demo client its secret yet. */
const withoutSecret = <T>(label: string): Called<T> => ({
  status: 0,
  body: null,
  error: null,
  step: {
    label: `${label} → not sent`,
    detail: "the demo client has no secret yet: run `npm run db:seed`",
    ok: false,
    labelKey: "notSent",
    detailKey: "noSecret",
    values: { request: label, command: "npm run db:seed" },
  },
});

/** client_secret_basic, body in the tested order, with redirect_uri (/docs/token). */
export async function exchangeCode(code: string, codeVerifier: string) {
  const authorization = await clientAuthorization();
  if (!authorization) return withoutSecret<TokenResponse>("POST /oauth/token");
  const body = new URLSearchParams([
    ["grant_type", "authorization_code"],
    ["code", code],
    ["code_verifier", codeVerifier],
    ["redirect_uri", demoRedirectUri()],
  ]);
  return call<TokenResponse>("POST", "/oauth/token", {
    headers: {
      Authorization: authorization,
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    },
    body: body.toString(),
    describe: (token) =>
      `access_token = ${maskSecret(token.access_token ?? token.apiKey ?? "")}, user = ${token.user ?? "?"}, scope = ${token.scope ?? "?"}, expires_in = ${token.expires_in ?? "?"}`,
  });
}

/** RFC 7009 revocation; any 2xx is success, the body is ignored (/docs/token). */
export async function revokeKey(apiKey: string) {
  const authorization = await clientAuthorization();
  if (!authorization) return withoutSecret<unknown>("POST /oauth/revoke");
  return call<unknown>("POST", "/oauth/revoke", {
    headers: {
      Authorization: authorization,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams([
      ["token", apiKey],
      ["token_type_hint", "access_token"],
    ]).toString(),
    describe: () => "the key is revoked",
    detailKey: () => ({ key: "keyRevoked", values: {} }),
  });
}

export interface BalanceWire {
  type: string;
  currency: string;
  enc?: string | null;
}

export interface AccountWire {
  id: string;
  aspspName: string;
  aspspCountry: string;
  currency: string;
  needsReconnect: boolean;
  balances?: BalanceWire[];
  enc?: string | null;
  displayNameEnc?: string | null;
  uidEnc?: string | null;
}

export interface TransactionWire {
  id: string;
  currency: string;
  creditDebitIndicator: string;
  bookingDate?: string | null;
  transactionDate?: string | null;
  enc?: string | null;
}

/** GET /api/accounts (/docs/data). */
export function getAccounts(apiKey: string) {
  return call<AccountWire[]>("GET", "/api/accounts", {
    headers: apiHeaders(apiKey),
    describe: (accounts) => `${accounts.length} account(s), every sensitive field sealed`,
    detailKey: (accounts) => ({ key: "accountsRead", values: { count: accounts.length } }),
  });
}

/** Newest first; `limit` only (/docs/data). */
export function getTransactions(apiKey: string, accountId: string, limit: number) {
  return call<{ items?: TransactionWire[]; total?: number }>(
    "GET",
    `/api/accounts/${encodeURIComponent(accountId)}/transactions?limit=${limit}`,
    {
      headers: apiHeaders(apiKey),
      describe: (page) => `${page.items?.length ?? 0} of ${page.total ?? 0} transaction(s)`,
      detailKey: (page) => ({
        key: "transactionsRead",
        values: { shown: page.items?.length ?? 0, total: page.total ?? 0 },
      }),
    },
  );
}

export interface SyncResult {
  accounts: number;
  newTransactions: number;
  failures?: { accountId: string; reason: string; bankErrorCode?: string | null }[];
}

/** POST /api/sync with the decrypted uids (/docs/sync). */
export function syncAll(apiKey: string, items: { accountId: string; uid: string }[]) {
  return call<SyncResult>("POST", "/api/sync", {
    headers: { ...apiHeaders(apiKey), "Content-Type": "application/json" },
    body: JSON.stringify({ items }),
    describe: (result) => JSON.stringify(result),
  });
}
