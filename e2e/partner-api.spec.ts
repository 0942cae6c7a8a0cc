import { expect, test } from "@playwright/test";
import { REREAD_DAYS } from "../lib/banking/windows";
import { db } from "../lib/db/client";
import { SANDBOX_SCENARIO_GRACE_MS } from "../lib/upstream/sandbox";
import { findSandboxAccount, toUpstreamAccount } from "../lib/upstream/sandbox/accounts";
import { connectBank } from "../test/bank-data";
import { createTestClient, mintApiKey } from "../test/oauth-fixtures";
import { ContractPartner, openEnvelope } from "./support/contract-partner";
import { connectJourneyDatabase } from "./support/database";
import {
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  newPkce,
  signInByCode,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { partnerAppForSpec } from "./support/partner-app";

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();

type AccountWire = { id: string; needsReconnect: boolean; enc: string; uidEnc: string };
type TransactionWire = { id: string; bookingDate: string; enc: string };
type ConnectionWire = { sessionId: string; isLive: boolean; accountIds: string[] };

test("a partner written against the partner docs reads, pages, syncs and revokes", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  const privateKey = client.recipientKey?.privateKeyPkcs8B64 ?? "";
  const { verifier, challenge } = newPkce();
  const relay = partnerApp().nextRelay();
  await page.goto(authorizePath(client, challenge));
  await signInByCode(page, uniqueEmail());
  await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
  await connectSandboxBank(page);
  const code = Object.fromEntries(await relay).code ?? "";

  const partner = new ContractPartner(E2E_ORIGIN, client);
  const { access_token: key } = await partner.exchange(code, verifier);

  // Accounts: every envelope opens with the partner's key to the bank's own data.
  const accounts = await partner.get<AccountWire[]>(key, "/api/accounts");
  expect(accounts.status).toBe(200);
  expect(accounts.body.length).toBeGreaterThan(0);
  const uids = new Map<string, string>();
  for (const account of accounts.body) {
    const { uid } = openEnvelope<{ uid: string }>(privateKey, account.uidEnc);
    uids.set(account.id, uid);
    const held = findSandboxAccount(uid);
    if (!held) throw new Error("no sandbox account behind the uid");
    const { ownerName, iban, bban, accountName, product } = toUpstreamAccount(held);
    expect(openEnvelope(privateKey, account.enc)).toEqual({
      ownerName,
      iban,
      bban,
      accountName,
      product,
    });
  }

  // The relay can come before the first history is stored whole: until then the list answers
  // 503 transient with Retry-After, and a partner asks again (docs/ingest.md).
  const accountId = accounts.body[0]?.id ?? "";
  await expect
    .poll(async () => (await partner.get(key, partner.transactionsPath(accountId, {}))).status, {
      intervals: [500],
      timeout: 30_000,
    })
    .toBe(200);

  // Transactions: the n8n/Zapier paginator (offset += items.length until total).
  const collected: TransactionWire[] = [];
  let total = Infinity;
  while (collected.length < total) {
    const path = partner.transactionsPath(accountId, {
      limit: Math.min(100, total - collected.length),
      offset: collected.length,
    });
    const pageOf = await partner.get<{ items: TransactionWire[]; total: number }>(key, path);
    expect(pageOf.status).toBe(200);
    total = pageOf.body.total;
    if (pageOf.body.items.length === 0) break;
    collected.push(...pageOf.body.items);
  }
  expect(collected.length).toBe(total);
  const dates = collected.map((item) => item.bookingDate);
  expect(dates).toEqual([...dates].sort().reverse());
  expect(openEnvelope<{ amount: string }>(privateKey, collected[0]?.enc ?? "").amount).toMatch(
    /^\d+\.\d{2}$/,
  );
  const from = dates[40] ?? "";
  const to = dates[10] ?? "";
  const window = await partner.get<{ items: TransactionWire[]; total: number }>(
    key,
    partner.transactionsPath(accountId, { from, to, limit: 500 }),
  );
  expect(window.body.total).toBe(dates.filter((date) => date >= from && date <= to).length);

  // Connections.
  const connections = await partner.get<ConnectionWire[]>(key, "/api/connections");
  expect(connections.body).toHaveLength(1);
  expect(connections.body[0]?.isLive).toBe(true);
  expect(connections.body[0]?.accountIds.sort()).toEqual([...uids.keys()].sort());

  // Sync: what the bank booked since (here: the newest entries of the busiest account, taken
  // out of storage) comes back once. A sync looks back REREAD_DAYS before the last one,
  // so only entries inside that window can come back: a savings account may have none.
  connectJourneyDatabase();
  const windowStart = new Date(Date.now() - (REREAD_DAYS - 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);
  const recent = await db().transaction.groupBy({
    by: ["accountId"],
    where: { accountId: { in: [...uids.keys()] }, bookingDate: { gte: windowStart } },
    _count: { _all: true },
  });
  const busiest = recent.sort((a, b) => b._count._all - a._count._all)[0]?.accountId ?? "";
  const stored = await db().transaction.count({ where: { accountId: busiest } });
  const newest = await db().transaction.findMany({
    where: { accountId: busiest, bookingDate: { gte: windowStart } },
    orderBy: [{ bookingDate: "desc" }, { id: "asc" }],
    take: 5,
  });
  expect(newest.length).toBeGreaterThan(0);
  await db().transaction.deleteMany({ where: { id: { in: newest.map((row) => row.id) } } });
  const synced = await partner.post(key, `/api/accounts/${busiest}/sync`, {
    uid: uids.get(busiest),
  });
  expect(synced.status).toBe(200);
  expect(synced.body).toMatchObject({ newTransactions: newest.length });
  const again = await partner.post(key, `/api/accounts/${busiest}/sync`, {
    uid: uids.get(busiest),
  });
  expect(again.body).toMatchObject({ newTransactions: 0 });
  expect(await db().transaction.count({ where: { accountId: busiest } })).toBe(stored);

  // Bulk sync with a throttling bank among the user's connections.
  const tenant = await db().tenant.findFirstOrThrow({
    where: { accounts: { some: { id: accountId } } },
  });
  const limited = await connectBank(tenant.id, client.recipientKey?.publicKeyRawB64 ?? "", {
    bank: { name: "Sandbox Scenario DK: rate limited", country: "DK" },
    agoMs: SANDBOX_SCENARIO_GRACE_MS + 60_000,
  });
  const all = await partner.get<AccountWire[]>(key, "/api/accounts");
  const items = all.body.map((account) => ({
    accountId: account.id,
    uid: openEnvelope<{ uid: string }>(privateKey, account.uidEnc).uid,
  }));
  const bulk = await partner.post(key, "/api/sync", { items });
  expect(bulk.status).toBe(200);
  expect(bulk.body).toEqual({
    accounts: uids.size,
    newTransactions: 0,
    failures: limited.stored.accountIds.map((id) => ({
      accountId: id,
      reason: "rate_limited",
      bankErrorCode: "ASPSP_RATE_LIMIT_EXCEEDED",
    })),
  });
  const single = await partner.post(key, `/api/accounts/${limited.stored.accountIds[0]}/sync`, {
    uid: limited.session.accounts[0]?.uid,
  });
  expect(single).toMatchObject({ status: 429, retryAfter: "3600" });

  // Revoke: the key stops working.
  expect(await partner.revoke(key)).toBe(200);
  expect((await partner.get(key, "/api/accounts")).status).toBe(401);
});

test("a valid API key gets 403 insufficient_scope as JSON on /api itself and every path or method outside the data operations", async () => {
  connectJourneyDatabase();
  const { key } = await mintApiKey(await createTestClient());
  const [account] = await db().account.findMany({ take: 1 });
  const id = account?.id ?? "00000000-0000-4000-8000-000000000000";
  const outside: [string, string][] = [
    ["GET", "/api"],
    ["POST", "/api"],
    ["PUT", "/api"],
    ["PATCH", "/api"],
    ["DELETE", "/api"],
    ["GET", "/api/nothing-here"],
    ["GET", `/api/accounts/${id}`],
    ["DELETE", "/api/accounts"],
    ["PUT", "/api/connections"],
    ["GET", "/api/sync"],
    ["GET", `/api/accounts/${id}/sync`],
    ["PATCH", `/api/accounts/${id}/transactions`],
  ];
  for (const [method, path] of outside) {
    const response = await fetch(`${E2E_ORIGIN}${path}`, {
      method,
      headers: { "X-Api-Key": key },
      redirect: "manual",
    });
    expect(response.status, `${method} ${path}`).toBe(403);
    expect(response.headers.get("www-authenticate"), `${method} ${path}`).toBe(
      'Bearer error="insufficient_scope"',
    );
    expect(response.headers.get("content-type"), `${method} ${path}`).toContain("application/json");
    expect(await response.json()).toMatchObject({ error: "insufficient_scope" });
  }
  // Without a key, /api asks for one, like every API path.
  const anonymous = await fetch(`${E2E_ORIGIN}/api`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get("www-authenticate")).toContain("Bearer");
  // The partner dashboard's endpoints under /api/partner keep their own answers.
  const dashboard = await fetch(`${E2E_ORIGIN}/api/partner/me`);
  expect(dashboard.status).toBe(401);
});
