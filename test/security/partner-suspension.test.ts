import { describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as transactionsRoute from "@/app/api/accounts/[id]/transactions/route";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import * as catchAllRoute from "@/app/api/[...path]/route";
import * as connectionsRoute from "@/app/api/connections/route";
import * as syncRoute from "@/app/api/sync/route";
import { db } from "../../lib/db/client";
import { handleRevokeRequest } from "../../lib/oauth/revoke";
import { handleTokenRequest } from "../../lib/oauth/token";
import { handleUserinfoRequest } from "../../lib/oauth/userinfo";
import { setPartnerStatus } from "../../lib/partners/partners";
import { connectedPartnerUser } from "../bank-data";
import {
  basicAuthorization,
  createTestClient,
  formRequest,
  issueCode,
  ISSUER,
  newVerifier,
  tokenRequest,
} from "../oauth-fixtures";

/**
 * A suspended partner (docs/partner-suspension.md): its API keys read
 * nothing, its clients get no new key, its users cannot start an
 * authorization, and it can still revoke; resuming restores everything.
 */

const SUSPENDED_READS = {
  error: "access_denied",
  error_description: "this partner is suspended; its API keys cannot read data until it is resumed",
  reason: "partner_suspended",
};

const keyed = (key: string, path: string, init: RequestInit = {}) =>
  new Request(`${ISSUER}${path}`, {
    ...init,
    headers: { "X-Api-Key": key, "Content-Type": "application/json", ...init.headers },
  });
const params = (values: Record<string, string | string[]>) => ({ params: Promise.resolve(values) });

/** Every operation an API key can call, each answered for `key`. */
async function everyRead(key: string, accountId: string): Promise<Response[]> {
  const uid = JSON.stringify({ uid: "anything" });
  return [
    await accountsRoute.GET(keyed(key, "/api/accounts"), {}),
    await transactionsRoute.GET(
      keyed(key, `/api/accounts/${accountId}/transactions`),
      params({ id: accountId }),
    ),
    await connectionsRoute.GET(keyed(key, "/api/connections"), {}),
    await accountSyncRoute.POST(
      keyed(key, `/api/accounts/${accountId}/sync`, { method: "POST", body: uid }),
      params({ id: accountId }),
    ),
    await syncRoute.POST(
      keyed(key, "/api/sync", {
        method: "POST",
        body: JSON.stringify({ items: [{ accountId, uid: "anything" }] }),
      }),
      {},
    ),
    await catchAllRoute.GET(keyed(key, "/api/connections/open-consents")),
    await handleUserinfoRequest(
      new Request(`${ISSUER}/oauth/userinfo`, { headers: { Authorization: `Bearer ${key}` } }),
    ),
  ];
}

async function firstAccountOf(tenantId: string): Promise<string> {
  return (await db().account.findFirstOrThrow({ where: { tenantId }, select: { id: true } })).id;
}

function revokeRequest(client: { clientId: string; clientSecret: string }, key: string) {
  return formRequest(
    "/oauth/revoke",
    { token: key, token_type_hint: "access_token" },
    { Authorization: basicAuthorization(client.clientId, client.clientSecret) },
  );
}

describe("a suspended partner", () => {
  it("reads nothing with its API keys: 403 partner_suspended on every data operation and userinfo", async () => {
    const { key, client, tenantId } = await connectedPartnerUser();
    const accountId = await firstAccountOf(tenantId);
    await setPartnerStatus(client.partnerId ?? "", "suspended");
    for (const response of await everyRead(key, accountId)) {
      expect(response.status).toBe(403);
      expect(response.headers.get("www-authenticate")).toBe(
        'Bearer error="access_denied", error_description="this partner is suspended"',
      );
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await response.json()).toEqual(SUSPENDED_READS);
    }
  });

  it("reads again once resumed, with the same keys", async () => {
    const { key, client, tenantId } = await connectedPartnerUser();
    const accountId = await firstAccountOf(tenantId);
    await setPartnerStatus(client.partnerId ?? "", "suspended");
    await setPartnerStatus(client.partnerId ?? "", "active");
    const [accounts, transactions, connections] = await everyRead(key, accountId);
    expect(accounts?.status).toBe(200);
    expect(transactions?.status).toBe(200);
    expect(connections?.status).toBe(200);
    const userinfo = await handleUserinfoRequest(
      new Request(`${ISSUER}/oauth/userinfo`, { headers: { Authorization: `Bearer ${key}` } }),
    );
    expect(userinfo.status).toBe(200);
  });

  it("gets no API key for a code: unauthorized_client, and the code still works after a resume", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    await setPartnerStatus(client.partnerId ?? "", "suspended");
    const refused = await handleTokenRequest(tokenRequest(client, code, verifier));
    expect(refused.status).toBe(400);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await refused.json()).toEqual({
      error: "unauthorized_client",
      error_description: "this partner is suspended; no API keys can be issued until it is resumed",
    });
    expect(await db().apiKey.count({ where: { clientId: client.clientId } })).toBe(0);

    await setPartnerStatus(client.partnerId ?? "", "active");
    const issued = await handleTokenRequest(tokenRequest(client, code, verifier));
    expect(issued.status).toBe(200);
  });

  it("still answers a wrong secret with invalid_client, saying nothing of the suspension", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    await setPartnerStatus(client.partnerId ?? "", "suspended");
    const response = await handleTokenRequest(
      tokenRequest({ ...client, clientSecret: "obs_wrong" }, code, verifier),
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("can still revoke its keys, which stay revoked after a resume", async () => {
    const { key, client } = await connectedPartnerUser();
    await setPartnerStatus(client.partnerId ?? "", "suspended");
    const revoked = await handleRevokeRequest(revokeRequest(client, key));
    expect(revoked.status).toBe(200);
    expect(await revoked.text()).toBe("");
    await setPartnerStatus(client.partnerId ?? "", "active");
    const [accounts] = await everyRead(key, "00000000-0000-0000-0000-000000000000");
    expect(accounts?.status).toBe(401);
  });
});
