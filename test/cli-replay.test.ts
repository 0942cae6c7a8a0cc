import { createHash, createPrivateKey, randomBytes, randomInt } from "node:crypto";
import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as callbackRoute from "../app/(flow)/banks/callback/route";
import * as accountsRoute from "../app/api/accounts/route";
import * as accountSyncRoute from "../app/api/accounts/[id]/sync/route";
import * as transactionsRoute from "../app/api/accounts/[id]/transactions/route";
import * as aspspsRoute from "../app/api/aspsps/route";
import * as authorizationsRoute from "../app/api/authorizations/route";
import * as connectionsRoute from "../app/api/connections/route";
import * as syncRoute from "../app/api/sync/route";
import * as confirmRoute from "../app/auth/cli/confirm/route";
import * as tokenRoute from "../app/auth/cli/token/route";
import { findSessionUser, type SignedInUser } from "../lib/auth/sessions";
import { generateKeyPair, openJson, sealJson } from "../lib/crypto/envelope";
import { generateUserKey, toCredentialsBundle } from "../lib/keys/browser-key";
import { db } from "../lib/db/client";
import { settleIngests } from "../lib/flow/bank-ingest";
import { cliConfirmToken, type CliStart } from "../lib/oauth/cli-sign-in";
import { approveSandboxAuthorization } from "../lib/upstream/sandbox/consent";
import {
  decodeAsGo,
  GO_ACCOUNT_ENC,
  GO_ACCOUNTS,
  GO_AUTHORIZATION_URL,
  GO_BALANCE_ENC,
  GO_BANKS,
  GO_CLI_TOKEN,
  GO_CONNECTIONS,
  GO_CREDENTIALS_BUNDLE,
  GO_SYNC_ALL_RESULT,
  GO_SYNC_RESULT,
  GO_TRANSACTION_ENC,
  GO_TRANSACTION_PAGE,
  GO_UID_ENC,
  GoDecodeError,
  missingKeys,
  type GoType,
} from "./go-json";
import { createTestUser, ISSUER, signedInCookie } from "./oauth-fixtures";
import { startRouteServer, type RouteServer } from "./route-server";

/**
 * Every request the published command-line client makes (docs/own-data.md),
 * replayed over HTTP against the routes as the service serves them, exactly
 * as the client sends it: its method, path and query (Go's url.Values sorts
 * the transaction filters by name), its headers (the CLI's User-Agent for the
 * sign-in's exchange, the Go SDK's with X-Api-Key for the rest, Go's
 * Accept-Encoding) and its JSON bodies (Go marshals a map with sorted keys).
 * Each answer is decoded as Go decodes it into the client's typed structs,
 * which fails on a value of the wrong type; the envelopes are opened with the
 * person's key and their payloads decoded the same way.
 *
 *   login        (browser) GET /auth/cli/start … → POST /auth/cli/confirm → the listener,
 *                POST /auth/cli/token
 *   banks        GET /api/aspsps?country=DK
 *   connect      GET /api/connections, POST /api/authorizations, GET /api/connections (polled)
 *   connections  GET /api/connections
 *   accounts     GET /api/accounts
 *   transactions GET /api/accounts/{id}/transactions[?from=&limit=&offset=&to=]
 *   sync <id>    GET /api/accounts, POST /api/accounts/{id}/sync
 *   sync --all   GET /api/accounts, POST /api/sync
 */

const CLI_AGENT = "open-banking-io/cli/dev";
const GO_AGENT = "open-banking-io/go/0.5.0";

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/auth/cli/confirm": confirmRoute,
    "/auth/cli/token": tokenRoute,
    "/api/aspsps": aspspsRoute,
    "/api/authorizations": authorizationsRoute,
    "/api/connections": connectionsRoute,
    "/api/accounts": accountsRoute,
    "/api/accounts/[id]/transactions": transactionsRoute,
    "/api/accounts/[id]/sync": accountSyncRoute,
    "/api/sync": syncRoute,
    "/banks/callback": callbackRoute,
  });
});
afterAll(() => server.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request as Go's net/http client sends it: only the headers it sets
 * (Host, User-Agent, Content-Length, Accept-Encoding: gzip, and the ones the
 * client sets itself), the body as the bytes it marshalled.
 */
function goRequest(
  method: "GET" | "POST",
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const url = new URL(path, server.origin);
  const sent: Record<string, string> = {
    "User-Agent": "Go-http-client/1.1",
    ...headers,
    "Accept-Encoding": "gzip",
    // The route server trusts one proxy hop: each request names a client address of its own.
    "X-Forwarded-For": `192.0.2.${randomInt(1, 255)}`,
  };
  if (body !== undefined) sent["Content-Length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers: sent,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () => {
          const raw = Buffer.concat(chunks);
          const gzip = incoming.headers["content-encoding"] === "gzip";
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: (gzip ? gunzipSync(raw) : raw).toString("utf8"),
          });
        });
      },
    );
    outgoing.on("error", reject);
    if (body !== undefined) outgoing.write(body);
    outgoing.end();
  });
}

/** The Go SDK's GET with the API key (its getJSON). */
const sdkGet = (path: string, apiKey: string) =>
  goRequest("GET", path, { "X-Api-Key": apiKey, "User-Agent": GO_AGENT });

/** The Go SDK's POST of a JSON body (its postJSON); `body` is what json.Marshal wrote. */
const sdkPost = (path: string, apiKey: string, body: string) =>
  goRequest(
    "POST",
    path,
    { "Content-Type": "application/json", "X-Api-Key": apiKey, "User-Agent": GO_AGENT },
    body,
  );

/** A 2xx answer decoded as the client decodes it; throws like json.Unmarshal would. */
function decoded<T>(answer: Answer, type: GoType, required: readonly string[] = []): T {
  expect(answer.status, answer.text).toBeGreaterThanOrEqual(200);
  expect(answer.status, answer.text).toBeLessThan(300);
  expect(answer.headers["content-type"]).toContain("application/json");
  const value: unknown = JSON.parse(answer.text);
  decodeAsGo(value, type);
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) expect(missingKeys(item, required)).toEqual([]);
  return value as T;
}

/** Go's url.Values.Encode: keys sorted, values query-escaped. */
function goEncode(values: Record<string, string>): string {
  return Object.keys(values)
    .sort()
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(values[key] ?? "")}`)
    .join("&");
}

describe("the command-line client's requests, replayed as it makes them", () => {
  it("decodes as Go does: a number where a string is expected fails, and so does a string for an int64", () => {
    expect(() => decodeAsGo([{ name: 7 }], GO_BANKS)).toThrow(GoDecodeError);
    expect(() => decodeAsGo({ items: [], total: "3" }, GO_TRANSACTION_PAGE)).toThrow(GoDecodeError);
    expect(() => decodeAsGo({ items: [], total: 1.5 }, GO_TRANSACTION_PAGE)).toThrow(GoDecodeError);
    expect(() => decodeAsGo([{ beta: "false" }], GO_BANKS)).toThrow(GoDecodeError);
    expect(() => decodeAsGo([{ psuTypes: "personal" }], GO_BANKS)).toThrow(GoDecodeError);
    expect(() => decodeAsGo({ apiKey: { key: "x" } }, GO_CLI_TOKEN)).toThrow(GoDecodeError);
    // As in Go: null is the zero value, unknown keys are ignored, names match case-insensitively.
    expect(() => decodeAsGo([{ logo: null, other: 1, NAME: "x" }], GO_BANKS)).not.toThrow();
  });

  it("takes the person's key only from the developer export, the credentials file its key import reads", async () => {
    const pair = await generateUserKey();
    const text = JSON.stringify(toCredentialsBundle({ issuer: ISSUER, user: "user:x", pair }));
    // key import: a JSON bundle (it starts with "{"), decoded into the client's struct …
    expect(text.trimStart().startsWith("{")).toBe(true);
    const bundle = JSON.parse(text) as {
      apiBaseUrl: string;
      encryptionKey: { privateKey: string };
    };
    decodeAsGo(bundle, GO_CREDENTIALS_BUNDLE);
    expect(missingKeys(bundle, ["apiBaseUrl", "encryptionKey"])).toEqual([]);
    expect(bundle.apiBaseUrl).toBe(ISSUER);
    // … whose private key must be standard base64 of a PKCS#8 P-256 key usable for ECDH.
    const privateKey = bundle.encryptionKey.privateKey;
    expect(privateKey).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const parsed = createPrivateKey({
      key: Buffer.from(privateKey, "base64"),
      format: "der",
      type: "pkcs8",
    });
    expect(parsed.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    // It opens what the service seals to the person's registered key.
    expect(openJson(privateKey, sealJson(pair.publicKey, { uid: "u-1" }))).toEqual({ uid: "u-1" });
  });

  it("signs in, lists banks, connects one, then reads, lists and syncs through the published client's wire", async () => {
    // A person with their key, signed in in their browser.
    const keys = generateKeyPair();
    const created = await createTestUser();
    const person = await db().user.update({
      where: { id: created.id },
      data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
    });
    const cookie = await signedInCookie(person.id);
    const session = (await findSessionUser(cookie.slice(cookie.indexOf("=") + 1))) as SignedInUser;

    // login: the program's PKCE pair and state; the browser allows it and goes to the listener.
    const verifier = randomBytes(32).toString("base64url");
    const start: CliStart = {
      port: randomInt(20_000, 60_000),
      codeChallenge: createHash("sha256").update(verifier).digest("base64url"),
      state: randomBytes(32).toString("base64url"),
    };
    const confirmed = await confirmCliSignIn(cookie, session, start, {
      state: start.state ?? "",
      decision: "allow",
    });
    const listener = new URL(confirmed.headers.get("location") ?? "");
    expect(listener.origin).toBe(`http://127.0.0.1:${start.port}`);
    expect(listener.pathname).toBe("/callback");
    const code = listener.searchParams.get("code") ?? "";

    // login: the exchange, as exchangeToken sends it.
    const token = decoded<{ apiKey: string; apiBaseUrl: string; user: string; prefix: string }>(
      await goRequest(
        "POST",
        "/auth/cli/token",
        { "Content-Type": "application/json", "User-Agent": CLI_AGENT },
        JSON.stringify({ code, codeVerifier: verifier }),
      ),
      GO_CLI_TOKEN,
      ["apiKey", "apiBaseUrl", "user", "prefix"],
    );
    expect(token.apiBaseUrl).toBe(ISSUER);
    expect(token.user).toBe(person.email);
    expect(token.prefix).toBe(token.apiKey.slice(0, 12));
    const apiKey = token.apiKey;

    // banks --country DK
    const banks = decoded<{ name: string; psuTypes: string[] }[]>(
      await sdkGet(`/api/aspsps?country=${encodeURIComponent("DK")}`, apiKey),
      GO_BANKS,
      ["name", "country", "logo", "bic", "beta", "psuTypes"],
    );
    const bank = banks.find((one) => one.name === "Sandbox Nordbank DK");
    expect(bank?.psuTypes).toContain("personal");

    // connect "Sandbox Nordbank DK": the connections before, the authorization, the bank, the poll.
    const before = decoded<{ sessionId: string }[]>(
      await sdkGet("/api/connections", apiKey),
      GO_CONNECTIONS,
    );
    expect(before).toEqual([]);
    const { url } = decoded<{ url: string }>(
      await sdkPost(
        "/api/authorizations",
        apiKey,
        JSON.stringify({ aspspName: "Sandbox Nordbank DK", country: "DK" }),
      ),
      GO_AUTHORIZATION_URL,
      ["url"],
    );
    const back = new URL(
      approveSandboxAuthorization(new URL(url).searchParams.get("authorization") ?? "") ?? "",
    );
    const landed = await fetch(`${server.origin}${back.pathname}${back.search}`, {
      redirect: "manual",
    });
    expect(landed.headers.get("location")).toBe("/banks/connected?result=connecting");
    await settleIngests();
    const after = decoded<{ sessionId: string; accountCount: number }[]>(
      await sdkGet("/api/connections", apiKey),
      GO_CONNECTIONS,
      ["sessionId", "aspspName", "aspspCountry", "validUntil", "status", "accountCount"],
    );
    const added = after.filter((one) => !before.some((old) => old.sessionId === one.sessionId));
    expect(added).toHaveLength(1);
    expect(added[0]?.accountCount).toBeGreaterThan(0);

    // accounts: every envelope opens with the person's key to the client's payload types.
    const accounts = decoded<
      { id: string; uidEnc: string; enc: string; balances: { enc: string }[] }[]
    >(await sdkGet("/api/accounts", apiKey), GO_ACCOUNTS, [
      "id",
      "aspspName",
      "aspspCountry",
      "currency",
      "needsReconnect",
      "balances",
    ]);
    expect(accounts).toHaveLength(added[0]?.accountCount ?? -1);
    for (const account of accounts) {
      decodeAsGo(openJson(keys.privateKeyPkcs8B64, account.enc), GO_ACCOUNT_ENC);
      decodeAsGo(openJson(keys.privateKeyPkcs8B64, account.uidEnc), GO_UID_ENC);
      for (const balance of account.balances) {
        decodeAsGo(openJson(keys.privateKeyPkcs8B64, balance.enc), GO_BALANCE_ENC);
      }
    }
    const first = accounts[0];
    if (!first) throw new Error("no account");

    // transactions <id> --from … --to … --limit 5 --offset 0: the filters in Go's sorted order.
    const query = goEncode({ from: "2020-01-01", to: "2099-12-31", limit: "5", offset: "0" });
    expect(query).toBe("from=2020-01-01&limit=5&offset=0&to=2099-12-31");
    const page = decoded<{ items: { enc: string }[]; total: number }>(
      await sdkGet(`/api/accounts/${encodeURIComponent(first.id)}/transactions?${query}`, apiKey),
      GO_TRANSACTION_PAGE,
      ["items", "total"],
    );
    expect(page.items.length).toBeLessThanOrEqual(5);
    expect(page.total).toBeGreaterThanOrEqual(page.items.length);
    for (const item of page.items) {
      decodeAsGo(openJson(keys.privateKeyPkcs8B64, item.enc), GO_TRANSACTION_ENC);
    }
    // transactions <id>, no filter: no "?" at all.
    decoded(
      await sdkGet(`/api/accounts/${encodeURIComponent(first.id)}/transactions`, apiKey),
      GO_TRANSACTION_PAGE,
    );

    // connections
    decoded(await sdkGet("/api/connections", apiKey), GO_CONNECTIONS);

    // sync <id>: the accounts first, then the decrypted uid.
    const again = decoded<{ id: string; uidEnc: string }[]>(
      await sdkGet("/api/accounts", apiKey),
      GO_ACCOUNTS,
    );
    const uid = openJson<{ uid: string }>(
      keys.privateKeyPkcs8B64,
      again.find((one) => one.id === first.id)?.uidEnc ?? "",
    ).uid;
    decoded(
      await sdkPost(
        `/api/accounts/${encodeURIComponent(first.id)}/sync`,
        apiKey,
        JSON.stringify({ uid }),
      ),
      GO_SYNC_RESULT,
      ["newTransactions", "totalFetched"],
    );

    // sync --all: the accounts, then every uid in one request.
    const all = decoded<{ id: string; uidEnc: string }[]>(
      await sdkGet("/api/accounts", apiKey),
      GO_ACCOUNTS,
    );
    const items = all.map((account) => ({
      accountId: account.id,
      uid: openJson<{ uid: string }>(keys.privateKeyPkcs8B64, account.uidEnc).uid,
    }));
    const synced = decoded<{ accounts: number }>(
      await sdkPost("/api/sync", apiKey, JSON.stringify({ items })),
      GO_SYNC_ALL_RESULT,
      ["accounts", "newTransactions"],
    );
    expect(synced.accounts).toBe(all.length);

    // Another person's own key: none of this is theirs.
    const other = await otherPersonsKey();
    expect(decoded(await sdkGet("/api/connections", other), GO_CONNECTIONS)).toEqual([]);
    expect(decoded(await sdkGet("/api/accounts", other), GO_ACCOUNTS)).toEqual([]);
    const foreignPage = await sdkGet(
      `/api/accounts/${encodeURIComponent(first.id)}/transactions`,
      other,
    );
    expect(foreignPage.status).toBe(404);
    const foreignSync = await sdkPost(
      `/api/accounts/${encodeURIComponent(first.id)}/sync`,
      other,
      JSON.stringify({ uid }),
    );
    expect(foreignSync.status).toBe(404);
  });
});

/** A second person who signed in with the command-line client too: their own key. */
/** The person's answer on the confirmation screen, posted as their browser posts it. */
function confirmCliSignIn(
  cookie: string,
  session: SignedInUser,
  start: CliStart,
  fields: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.origin}/auth/cli/confirm`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: ISSUER,
      Cookie: cookie,
    },
    body: new URLSearchParams({
      csrf: cliConfirmToken(session, start),
      port: String(start.port),
      code_challenge: start.codeChallenge,
      ...fields,
    }).toString(),
  });
}

async function otherPersonsKey(): Promise<string> {
  const keys = generateKeyPair();
  const created = await createTestUser();
  await db().user.update({
    where: { id: created.id },
    data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
  });
  const cookie = await signedInCookie(created.id);
  const session = (await findSessionUser(cookie.slice(cookie.indexOf("=") + 1))) as SignedInUser;
  const verifier = randomBytes(32).toString("base64url");
  const start: CliStart = {
    port: randomInt(20_000, 60_000),
    codeChallenge: createHash("sha256").update(verifier).digest("base64url"),
    state: null,
  };
  const confirmed = await confirmCliSignIn(cookie, session, start);
  const code = new URL(confirmed.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const answer = await goRequest(
    "POST",
    "/auth/cli/token",
    { "Content-Type": "application/json", "User-Agent": CLI_AGENT },
    JSON.stringify({ code, codeVerifier: verifier }),
  );
  return decoded<{ apiKey: string }>(answer, GO_CLI_TOKEN).apiKey;
}
