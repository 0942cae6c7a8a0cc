import { describe, expect, it } from "vitest";
import { GET as listAccounts } from "@/app/api/accounts/route";
import { GET as listTransactions } from "@/app/api/accounts/[id]/transactions/route";
import { connectedPartnerUser } from "@/test/bank-data";
import { countStatements } from "@/test/statement-counter";
import {
  createTestClient,
  ISSUER,
  issueCode,
  mintApiKey,
  newVerifier,
  tokenRequest,
} from "@/test/oauth-fixtures";
import { db } from "../db/client";
import { handleTokenRequest } from "./token";
import { setPartnerStatus } from "../partners/partners";
import { sql, statement } from "../db/sql";
import { findActiveApiKey, hashApiKey, readWithApiKey } from "../keys/api-keys";
import { flushKeyUses } from "../keys/last-use";
import { withKeyCheck } from "../keys/queries";

/** A keyed read whose columns share the key check's names. */
const shadowingRead = statement(
  "test.shadowingKeyedRead",
  (hashes: readonly string[], now: Date) =>
    withKeyCheck(
      hashes,
      now,
      (tenantId) => sql`SELECT 'not the tenant' AS "tenantId", ${tenantId}::text AS "apiKeyId"`,
    ),
  [[["hash"], new Date()]],
);
const constantRead = statement(
  "test.constantKeyedRead",
  (hashes: readonly string[], now: Date) => withKeyCheck(hashes, now, () => sql`SELECT 1 AS "n"`),
  [[["hash"], new Date()]],
);

/**
 * The API-key check is one statement joining the key to its tenant, user,
 * client and partner: every refusal (revoked, expired, a suspended partner)
 * is decided by that one round trip, and the hottest endpoints pay no more
 * round trips than their answer needs.
 */

const bearer = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });
const accounts = (key: string) =>
  listAccounts(new Request(`${ISSUER}/api/accounts`, bearer(key)), {});

describe("the joined API-key check", () => {
  it("finds a live key's principal in one statement", async () => {
    const client = await createTestClient();
    const { key, user } = await mintApiKey(client);
    const { result, statements } = await countStatements(() => findActiveApiKey(key));
    expect(statements).toHaveLength(1);
    expect(result).toMatchObject({
      subject: `wl:${client.partnerId}:connect:${user.email}`,
      email: user.email,
      clientId: client.clientId,
      partnerId: client.partnerId,
      scope: "accounts.read",
      partnerSuspended: false,
    });
  });

  it("refuses a revoked and an expired key in that one statement", async () => {
    const client = await createTestClient();
    const revoked = await mintApiKey(client);
    const expired = await mintApiKey(client);
    await db().apiKey.update({
      where: { keyHash: hashApiKey(revoked.key) },
      data: { revokedAt: new Date() },
    });
    await db().apiKey.update({
      where: { keyHash: hashApiKey(expired.key) },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    for (const key of [revoked.key, expired.key]) {
      const { result, statements } = await countStatements(() => accounts(key));
      expect(statements).toHaveLength(1);
      expect(result.status).toBe(401);
    }
  });

  it("refuses a suspended partner's key with 403 in that one statement, and reads again once resumed", async () => {
    const client = await createTestClient();
    const { key } = await mintApiKey(client);
    await setPartnerStatus(client.partnerId ?? "", "suspended");
    const { result, statements } = await countStatements(() => accounts(key));
    expect(statements).toHaveLength(1);
    expect(result.status).toBe(403);
    expect(await result.json()).toMatchObject({ reason: "partner_suspended" });
    await setPartnerStatus(client.partnerId ?? "", "active");
    expect((await accounts(key)).status).toBe(200);
  });
});

describe("a read that carries the key check", () => {
  const transactions = (key: string, accountId: string, query = "") =>
    listTransactions(
      new Request(`${ISSUER}/api/accounts/${accountId}/transactions${query}`, bearer(key)),
      { params: Promise.resolve({ id: accountId }) },
    );

  it("answers a live key without accounts an empty list, and notes the key's use", async () => {
    const client = await createTestClient();
    const { key } = await mintApiKey(client);
    const { result, statements } = await countStatements(() => accounts(key));
    expect(statements).toHaveLength(1);
    expect(result.status).toBe(200);
    expect(await result.json()).toEqual([]);
    await flushKeyUses();
    const stored = await db().apiKey.findUniqueOrThrow({ where: { keyHash: hashApiKey(key) } });
    expect(stored.lastUsedAt).not.toBeNull();
  });

  it("tells a dead key 401 before a malformed parameter or id, and a live key 400 or 404", async () => {
    const { key, stored } = await connectedPartnerUser();
    const accountId = stored.accountIds[0] ?? "";
    const dead = `${key.slice(0, -4)}AAAA`;
    const badLimit = (k: string) =>
      listAccounts(new Request(`${ISSUER}/api/accounts?limit=abc`, bearer(k)), {});
    expect((await badLimit(dead)).status).toBe(401);
    expect((await badLimit(key)).status).toBe(400);
    expect((await transactions(dead, "not-a-uuid")).status).toBe(401);
    expect((await transactions(key, "not-a-uuid")).status).toBe(404);
    expect((await transactions(dead, accountId, "?limit=0")).status).toBe(401);
    expect((await transactions(key, accountId, "?limit=0")).status).toBe(400);
    expect((await transactions(dead, accountId)).status).toBe(401);
    const unknown = "00000000-0000-4000-8000-000000000000";
    const { result, statements } = await countStatements(() => transactions(key, unknown));
    expect(statements).toHaveLength(2);
    expect(result.status).toBe(404);
  });

  it("refuses a suspended partner's key 403 on a transactions page after the key check alone", async () => {
    const { key, stored, client } = await connectedPartnerUser();
    const accountId = stored.accountIds[0] ?? "";
    await setPartnerStatus(client.partnerId ?? "", "suspended");
    const { result, statements } = await countStatements(() => transactions(key, accountId));
    expect(statements).toHaveLength(1);
    expect(result.status).toBe(403);
    expect(await result.json()).toMatchObject({ reason: "partner_suspended" });
    await setPartnerStatus(client.partnerId ?? "", "active");
    expect((await transactions(key, accountId)).status).toBe(200);
  });

  it("keeps the key check apart from a read's column of the same name", async () => {
    const client = await createTestClient();
    const { key } = await mintApiKey(client);
    const principal = await findActiveApiKey(key);
    const found = await readWithApiKey<{ tenantId: string; apiKeyId: string }>(
      key,
      shadowingRead,
      "tenantId",
    );
    expect(found?.key).toEqual({
      apiKeyId: principal?.apiKeyId,
      tenantId: principal?.tenantId,
      partnerSuspended: false,
    });
    expect(found?.rows).toEqual([
      expect.objectContaining({ tenantId: "not the tenant", apiKeyId: principal?.tenantId }),
    ]);
    expect(await readWithApiKey(`${key}x`, constantRead, "n")).toBeNull();
  });
});

describe("round trips of the hottest endpoints", () => {
  it("GET /api/accounts: one statement, the key check and the read; a transactions page: the key check, then the read", async () => {
    const { key, stored } = await connectedPartnerUser();
    const list = await countStatements(() => accounts(key));
    expect(list.result.status).toBe(200);
    expect(list.statements).toHaveLength(1);
    const accountId = stored.accountIds[0] ?? "";
    const page = await countStatements(() =>
      listTransactions(
        new Request(`${ISSUER}/api/accounts/${accountId}/transactions?limit=100`, bearer(key)),
        { params: Promise.resolve({ id: accountId }) },
      ),
    );
    expect(page.result.status).toBe(200);
    expect(page.statements).toHaveLength(2);
  });

  it("a token exchange: the client check and one statement that consumes the code, mints the key and records the event", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const exchange = await countStatements(() =>
      handleTokenRequest(tokenRequest(client, code, verifier)),
    );
    expect(exchange.result.status).toBe(200);
    expect(exchange.statements).toHaveLength(2);
  });
});
