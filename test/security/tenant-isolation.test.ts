import { describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import * as transactionsRoute from "@/app/api/accounts/[id]/transactions/route";
import * as connectionsRoute from "@/app/api/connections/route";
import * as bulkSyncRoute from "@/app/api/sync/route";
import { openJson } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import { handleTokenRequest } from "../../lib/oauth/token";
import { connectBank, partnerTenantOf, partnerWithRecipientKey } from "../bank-data";
import {
  createTestUser,
  ISSUER,
  issueCodeForUser,
  newVerifier,
  tokenRequest,
  type TestClient,
} from "../oauth-fixtures";

/**
 * Cross-tenant access by id (IDOR) on the data API (/docs/data): one person
 * signed in through two partners is two tenants, and neither partner's key
 * reaches the other's accounts, transactions, connections or syncs, whatever
 * ids it presents.
 */

const params = (values: Record<string, string>) => ({ params: Promise.resolve(values) });
const get = (key: string, path: string) =>
  new Request(`${ISSUER}${path}`, { headers: { "X-Api-Key": key } });
const post = (key: string, path: string, body: unknown) =>
  new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: { "X-Api-Key": key, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

/** An API key of `client` for an existing user, through the real consent and token endpoint. */
async function keyFor(client: TestClient, userId: string): Promise<string> {
  const verifier = newVerifier();
  const { code } = await issueCodeForUser(client, verifier, userId);
  const response = await handleTokenRequest(tokenRequest(client, code, verifier));
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A partner with a recipient key whose tenant for `user` has a sandbox bank connected. */
async function partnerTenant(user: { id: string; email: string }) {
  const { client, keys } = await partnerWithRecipientKey();
  const key = await keyFor(client, user.id);
  const tenant = await partnerTenantOf(client, user);
  const connected = await connectBank(tenant.id, keys.publicKeyRawB64);
  const accountIds = connected.stored.accountIds;
  const uids = connected.session.accounts.map((account) => account.uid);
  return {
    key,
    keys,
    tenantId: tenant.id,
    connectionId: connected.stored.connectionId,
    accountIds,
    uids,
  };
}

async function listAccounts(key: string) {
  const response = await accountsRoute.GET(get(key, "/api/accounts"), {});
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; uidEnc: string }[];
}

const snapshot = (accountIds: string[]) =>
  Promise.all(
    accountIds.map(async (id) => ({
      transactions: await db().transaction.count({ where: { accountId: id } }),
      account: await db().account.findUniqueOrThrow({ where: { id } }),
    })),
  );

describe("cross-tenant access by id (IDOR) on the data API", () => {
  it("one person through two partners: neither partner's key reads or syncs the other tenant's data", async () => {
    const user = await createTestUser();
    const mine = await partnerTenant(user);
    const theirs = await partnerTenant(user);
    expect(mine.tenantId).not.toBe(theirs.tenantId);
    const before = await snapshot(theirs.accountIds);

    // GET /api/accounts: only the key's own tenant.
    const listed = await listAccounts(mine.key);
    expect(listed.map((account) => account.id).sort()).toEqual([...mine.accountIds].sort());
    for (const account of listed) {
      const { uid } = openJson<{ uid: string }>(mine.keys.privateKeyPkcs8B64, account.uidEnc);
      expect(theirs.uids).not.toContain(uid);
    }

    // GET /api/connections: the other tenant's connection and accounts never appear.
    const connections = await connectionsRoute.GET(get(mine.key, "/api/connections"), params({}));
    const body = (await connections.json()) as { sessionId: string; accountIds: string[] }[];
    expect(body.map((connection) => connection.sessionId)).toEqual([mine.connectionId]);
    expect(body.flatMap((connection) => connection.accountIds)).not.toEqual(
      expect.arrayContaining([theirs.accountIds[0]]),
    );

    for (const [index, accountId] of theirs.accountIds.entries()) {
      // GET /api/accounts/{id}/transactions with the other tenant's id.
      const transactions = await transactionsRoute.GET(
        get(mine.key, `/api/accounts/${accountId}/transactions`),
        params({ id: accountId }),
      );
      expect(transactions.status).toBe(404);
      // POST /api/accounts/{id}/sync with the other tenant's id and its true uid.
      const synced = await accountSyncRoute.POST(
        post(mine.key, `/api/accounts/${accountId}/sync`, { uid: theirs.uids[index] }),
        params({ id: accountId }),
      );
      expect(synced.status).toBe(404);
    }

    // POST /api/sync naming the other tenant's accounts: each is not_found, nothing synced.
    const bulk = await bulkSyncRoute.POST(
      post(mine.key, "/api/sync", {
        items: theirs.accountIds.map((accountId, index) => ({
          accountId,
          uid: theirs.uids[index],
        })),
      }),
      params({}),
    );
    expect(bulk.status).toBe(200);
    const result = (await bulk.json()) as {
      accounts: number;
      failures: { accountId: string; reason: string }[];
    };
    expect(result.accounts).toBe(0);
    expect(result.failures).toEqual(
      theirs.accountIds.map((accountId) => ({
        accountId,
        reason: "not_found",
        bankErrorCode: null,
      })),
    );

    // The other tenant's rows are untouched, and its own key still reads them.
    expect(await snapshot(theirs.accountIds)).toEqual(before);
    expect((await listAccounts(theirs.key)).map((account) => account.id).sort()).toEqual(
      [...theirs.accountIds].sort(),
    );
  });
});
