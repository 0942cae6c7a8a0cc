import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as loginRequest } from "@/app/(flow)/login/request/route";
import { POST as registerKey } from "@/app/(flow)/setup/key/route";
import { GET as listAccounts } from "@/app/api/accounts/route";
import { GET as listTransactions } from "@/app/api/accounts/[id]/transactions/route";
import { findFreePort } from "@/scripts/lib/embedded-postgres";
import { ownerOf } from "@/test/partner-owners";
import {
  basicAuthorization,
  createTestClient,
  issueCode,
  mintApiKey,
  newVerifier,
  tokenRequest,
  type TestClient,
} from "@/test/oauth-fixtures";
import { handleAuthorizeRequest } from "../flow/start";
import { handleRevokeRequest } from "../oauth/revoke";
import { handleTokenRequest } from "../oauth/token";
import { handleUserinfoRequest } from "../oauth/userinfo";
import { handlePartnerMe } from "../partners/partner-api";
import { handleListClients } from "../partners/client-api";
import { rawSetting, setDatabaseUrl } from "../env";
import { db, disconnectDb } from "./client";
import { isDatabaseUnavailable } from "./faults";
import { query, sql, statement } from "./sql";

/** A statement that touches no table. */
const one = statement("test.one", (n: number) => sql`SELECT ${n}::int AS "one"`, [[1]]);

/**
 * While the database cannot be reached every endpoint answers 503 with
 * Retry-After in its own documented error shape, never a 500 and never a
 * redirect: the service is pointed at a port where nothing listens.
 */

let client: TestClient;
let key: string;
let code: string;
let verifier: string;
let owner: Awaited<ReturnType<typeof ownerOf>>;
let workingUrl: string;
let deadUrl: string;

async function captureError(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

beforeAll(async () => {
  client = await createTestClient();
  ({ key } = await mintApiKey(client));
  verifier = newVerifier();
  ({ code } = await issueCode(client, verifier));
  owner = await ownerOf(1);
  workingUrl = rawSetting("DATABASE_URL") ?? "";
  deadUrl = `postgresql://postgres:x@127.0.0.1:${await findFreePort()}/bank_connect`;
  await disconnectDb();
  setDatabaseUrl(deadUrl);
});

afterAll(async () => {
  await disconnectDb();
  setDatabaseUrl(workingUrl);
});

function expectRetryAfter(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("Retry-After")).toBe("5");
}

describe("isDatabaseUnavailable", () => {
  it("recognises the real error of a query against an unreachable server", async () => {
    const error = await captureError(() => db().user.count());
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it("recognises the real error of a hand-written statement against an unreachable server", async () => {
    const error = await captureError(() => query(one(1)));
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it("recognises connection failures nested as causes, and nothing else", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(isDatabaseUnavailable(new Error("wrapped", { cause: refused }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("shutdown"), { code: "57P01" }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(Object.assign(new Error("unique"), { code: "P2002" }))).toBe(
      false,
    );
    expect(isDatabaseUnavailable(Object.assign(new Error("syntax"), { code: "42601" }))).toBe(
      false,
    );
    expect(isDatabaseUnavailable(new TypeError("undefined is not a function"))).toBe(false);
    expect(isDatabaseUnavailable("ECONNREFUSED")).toBe(false);
  });
});

describe("answers while the database is down", () => {
  it("token: 503 temporarily_unavailable, not cached", async () => {
    const response = await handleTokenRequest(tokenRequest(client, code, verifier));
    expectRetryAfter(response);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(await response.json()).toEqual({
      error: "temporarily_unavailable",
      error_description: expect.any(String),
    });
  });

  it("authorize: a 503 in JSON, never a redirect before the client is known", async () => {
    const query = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: "code",
      state: "s",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const response = await handleAuthorizeRequest(
      new Request(`http://localhost:3000/oauth/authorize?${query}`),
    );
    expectRetryAfter(response);
    expect(response.headers.get("Location")).toBeNull();
    expect((await response.json()) as { error: string }).toMatchObject({
      error: "temporarily_unavailable",
    });
  });

  it("revoke and userinfo: 503 temporarily_unavailable", async () => {
    const revoke = await handleRevokeRequest(
      new Request("http://localhost:3000/oauth/revoke", {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Authorization: basicAuthorization(client.clientId, client.clientSecret),
        },
        body: new URLSearchParams({ token: key }),
      }),
    );
    expectRetryAfter(revoke);
    const userinfo = await handleUserinfoRequest(
      new Request("http://localhost:3000/oauth/userinfo", {
        headers: { Authorization: `Bearer ${key}` },
      }),
    );
    expectRetryAfter(userinfo);
    expect(((await userinfo.json()) as { error: string }).error).toBe("temporarily_unavailable");
  });

  it("data API: a transactions page answers the same 503 (its key check and read are hand-written SQL)", async () => {
    const accountId = "00000000-0000-4000-8000-000000000000";
    const response = await listTransactions(
      new Request(`http://localhost:3000/api/accounts/${accountId}/transactions`, {
        headers: { Authorization: `Bearer ${key}` },
      }),
      { params: Promise.resolve({ id: accountId }) },
    );
    expectRetryAfter(response);
    expect(await response.json()).toEqual({ status: 503, reason: "transient" });
  });

  it("data API: the documented transient sync-style body, even for the key lookup", async () => {
    const response = await listAccounts(
      new Request("http://localhost:3000/api/accounts", {
        headers: { Authorization: `Bearer ${key}` },
      }),
      { params: Promise.resolve({}) },
    );
    expectRetryAfter(response);
    expect(await response.json()).toEqual({ status: 503, reason: "transient" });
  });

  it("partner endpoints: 503 temporarily_unavailable", async () => {
    const headers = { Cookie: owner.cookie };
    for (const handler of [handlePartnerMe, handleListClients]) {
      const response = await handler(
        new Request("http://localhost:3000/api/partner/me", { headers }),
      );
      expectRetryAfter(response);
      expect(((await response.json()) as { error: string }).error).toBe("temporarily_unavailable");
    }
  });

  it("browser screens: a form post lands on the error screen, a script's JSON post gets a 503", async () => {
    const origin = { Origin: "http://localhost:3000" };
    const form = await loginRequest(
      new Request("http://localhost:3000/login/request", {
        method: "POST",
        headers: { ...origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: "someone@example.com", csrf: "x" }),
      }),
    );
    expect(form.status).toBe(303);
    expect(form.headers.get("Location")).toBe("/error?reason=unavailable");
    const json = await registerKey(
      new Request("http://localhost:3000/setup/key", {
        method: "POST",
        headers: { ...origin, "Content-Type": "application/json", Cookie: owner.cookie },
        body: JSON.stringify({ publicKey: "x", csrf: "x" }),
      }),
    );
    expectRetryAfter(json);
    expect(await json.json()).toEqual({ error: "unavailable" });
  });
});
