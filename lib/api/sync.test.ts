import { describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import * as bulkSyncRoute from "@/app/api/sync/route";
import * as connectionsRoute from "@/app/api/connections/route";
import { openJson } from "../crypto/envelope";
import { db } from "../db/client";
import { SANDBOX_SCENARIO_GRACE_MS } from "../upstream/sandbox";
import { connectBank, connectedPartnerUser } from "../../test/bank-data";
import { ISSUER } from "../../test/oauth-fixtures";

/** Online sync as a partner drives it (/docs/sync). */

const DAY_MS = 86_400_000;
const ARMED = SANDBOX_SCENARIO_GRACE_MS + 60_000;
const params = (values: Record<string, string>) => ({ params: Promise.resolve(values) });

type Partner = Awaited<ReturnType<typeof connectedPartnerUser>>;

/** The partner's view: account ids with their decrypted uids. */
async function accountsOf(partner: Partner) {
  const response = await accountsRoute.GET(
    new Request(`${ISSUER}/api/accounts`, { headers: { "X-Api-Key": partner.key } }),
    params({}),
  );
  const listed = (await response.json()) as {
    id: string;
    aspspName: string;
    needsReconnect: boolean;
    uidEnc: string;
  }[];
  return listed.map((account) => ({
    ...account,
    uid: openJson<{ uid: string }>(partner.keys.privateKeyPkcs8B64, account.uidEnc).uid,
  }));
}

function post(key: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: { "X-Api-Key": key, "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

function syncOne(
  key: string,
  accountId: string,
  uid: string,
  headers: Record<string, string> = {},
) {
  return accountSyncRoute.POST(
    post(key, `/api/accounts/${accountId}/sync`, { uid }, headers),
    params({ id: accountId }),
  );
}

function syncAll(key: string, items: { accountId: string; uid: string }[]) {
  return bulkSyncRoute.POST(post(key, "/api/sync", { items }), params({}));
}

const countOf = (accountId: string) => db().transaction.count({ where: { accountId } });

describe("POST /api/accounts/{id}/sync", () => {
  it("stores what is new since the last sync, and nothing twice", async () => {
    const partner = await connectedPartnerUser({ agoMs: 10 * DAY_MS });
    const [account] = await accountsOf(partner);
    if (!account) throw new Error("no account");
    const before = await countOf(account.id);

    const response = await syncOne(partner.key, account.id, account.uid);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { newTransactions: number; totalFetched: number };
    expect(body.newTransactions).toBeGreaterThan(0);
    expect(body.totalFetched).toBeGreaterThan(body.newTransactions); // the overlap re-read
    expect(await countOf(account.id)).toBe(before + body.newTransactions);

    const again = await (await syncOne(partner.key, account.id, account.uid)).json();
    expect(again).toMatchObject({ newTransactions: 0 });
    const connection = await db().connection.findUniqueOrThrow({
      where: { id: partner.stored.connectionId },
    });
    expect(Date.now() - (connection.lastSyncedAt?.getTime() ?? 0)).toBeLessThan(60_000);
  });

  it("never duplicates a transaction when syncs of one account run at once", async () => {
    const partner = await connectedPartnerUser({ agoMs: 20 * DAY_MS });
    const [account] = await accountsOf(partner);
    if (!account) throw new Error("no account");
    const before = await countOf(account.id);
    const results = await Promise.all(
      [1, 2, 3].map(async () => {
        const response = await syncOne(partner.key, account.id, account.uid);
        return ((await response.json()) as { newTransactions: number }).newTransactions;
      }),
    );
    const added = results.reduce((sum, value) => sum + value, 0);
    expect(added).toBeGreaterThan(0);
    expect(await countOf(account.id)).toBe(before + added);
    const hashes = await db().transaction.groupBy({
      by: ["dedupeHash"],
      where: { accountId: account.id },
      _count: true,
    });
    expect(hashes.every((row) => row._count === 1)).toBe(true);
  });

  it("answers 409 uid_outdated for a uid that is not the account's", async () => {
    const partner = await connectedPartnerUser();
    const [first, second] = await accountsOf(partner);
    if (!first || !second) throw new Error("expected two accounts");
    const response = await syncOne(partner.key, first.id, second.uid);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ status: 409, reason: "uid_outdated" });
  });

  it("answers reconnect_needed once the consent has ended, and flags the account", async () => {
    const partner = await connectedPartnerUser();
    await db().connection.update({
      where: { id: partner.stored.connectionId },
      data: { validUntil: new Date(Date.now() - 1000) },
    });
    const [account] = await accountsOf(partner);
    const response = await syncOne(partner.key, account?.id ?? "", account?.uid ?? "");
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ status: 409, reason: "reconnect_needed" });
    expect((await accountsOf(partner))[0]?.needsReconnect).toBe(true);
  });

  it("answers 404 for another tenant's account and 400 for a malformed body", async () => {
    const mine = await connectedPartnerUser();
    const theirs = await connectedPartnerUser();
    const [their] = await accountsOf(theirs);
    expect((await syncOne(mine.key, their?.id ?? "", their?.uid ?? "")).status).toBe(404);
    const [own] = await accountsOf(mine);
    const id = own?.id ?? "";
    for (const [body, detail] of [
      ["{not json", "the body must be JSON"],
      [{}, "uid: Invalid input: expected string, received undefined"],
      [{ uid: 42 }, "uid: Invalid input: expected string, received number"],
    ] as const) {
      const response = await accountSyncRoute.POST(
        post(mine.key, `/api/accounts/${id}/sync`, body),
        params({ id }),
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ status: 400, reason: "invalid_request", detail });
    }
  });
});

/** The sync failure reasons (/docs/sync), each produced by a sandbox scenario bank. */
const SCENARIOS = [
  ["reconnect needed", 409, "reconnect_needed", "EXPIRED_SESSION", null],
  ["consent withdrawn", 409, "consent_withdrawn", "REVOKED_SESSION", null],
  ["rate limited", 429, "rate_limited", "ASPSP_RATE_LIMIT_EXCEEDED", "3600"],
  ["bank error", 502, "bank_error", "ASPSP_ERROR", null],
  ["transient", 503, "transient", null, null],
  ["partner app inactive", 503, "partner_app_inactive", null, null],
  ["psu present required", 409, "psu_present_required", "PSU_HEADER_NOT_PROVIDED", null],
] as const;

describe("sync failures from the sandbox's scenario banks", () => {
  it.each(SCENARIOS)(
    "%s: %i %s on the account sync, and in the bulk sync's failures",
    async (slug, status, reason, bankErrorCode, retryAfter) => {
      const partner = await connectedPartnerUser({
        bank: { name: `Sandbox Scenario DK: ${slug}`, country: "DK" },
        agoMs: ARMED,
      });
      const [account] = await accountsOf(partner);
      if (!account) throw new Error("no account");
      // A bank that shares data only with the holder present says which headers bring them.
      const missing =
        reason === "psu_present_required"
          ? { missingPsuHeaders: ["X-Psu-Ip-Address", "X-Psu-User-Agent"] }
          : {};
      const response = await syncOne(partner.key, account.id, account.uid);
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({
        status,
        reason,
        ...(bankErrorCode ? { bankErrorCode } : {}),
        ...missing,
      });
      expect(response.headers.get("retry-after")).toBe(retryAfter);

      const fresh = await connectBank(partner.tenantId, partner.keys.publicKeyRawB64, {
        bank: { name: `Sandbox Scenario DK: ${slug}`, country: "DK" },
        agoMs: ARMED,
      });
      const accountId = fresh.stored.accountIds[0] ?? "";
      const uid = fresh.session.accounts[0]?.uid ?? "";
      const bulk = await syncAll(partner.key, [{ accountId, uid }]);
      expect(bulk.status).toBe(200);
      expect(await bulk.json()).toEqual({
        accounts: 0,
        newTransactions: 0,
        // A withdrawn consent is left out silently (/docs/data).
        failures:
          reason === "consent_withdrawn"
            ? []
            : [{ accountId, reason, bankErrorCode: bankErrorCode ?? null, ...missing }],
      });
    },
  );

  it("a scenario bank serves normally during its first minute, so connecting it works", async () => {
    const partner = await connectedPartnerUser({
      bank: { name: "Sandbox Scenario DK: bank error", country: "DK" },
    });
    const [account] = await accountsOf(partner);
    expect((await syncOne(partner.key, account?.id ?? "", account?.uid ?? "")).status).toBe(200);
  });

  it("psu_present_required clears when the holder's public IP and user agent are forwarded", async () => {
    const partner = await connectedPartnerUser({
      bank: { name: "Sandbox Scenario DK: psu present required", country: "DK" },
      agoMs: ARMED,
    });
    const [account] = await accountsOf(partner);
    const id = account?.id ?? "";
    const uid = account?.uid ?? "";
    const present = { "X-Psu-Ip-Address": "8.8.8.8", "X-Psu-User-Agent": "Mozilla/5.0" };
    expect((await syncOne(partner.key, id, uid, present)).status).toBe(200);
    // A private address or a missing user agent forwards nothing.
    const privateIp = { ...present, "X-Psu-Ip-Address": "10.1.2.3" };
    expect((await syncOne(partner.key, id, uid, privateIp)).status).toBe(409);
    const noAgent = { "X-Psu-Ip-Address": "8.8.8.8" };
    expect((await syncOne(partner.key, id, uid, noAgent)).status).toBe(409);
  });

  it("psu_headers_missing names the header a bank requires of a sync with the holder present", async () => {
    const partner = await connectedPartnerUser({
      bank: { name: "Sandbox Scenario DK: psu headers missing", country: "DK" },
    });
    const [account] = await accountsOf(partner);
    const id = account?.id ?? "";
    const uid = account?.uid ?? "";
    const present = { "X-Psu-Ip-Address": "8.8.8.8", "X-Psu-User-Agent": "Mozilla/5.0" };
    const refused = await syncOne(partner.key, id, uid, present);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      status: 409,
      reason: "psu_headers_missing",
      bankErrorCode: "PSU_HEADER_NOT_PROVIDED",
      missingPsuHeaders: ["X-Psu-Geo-Location"],
    });
    // Now recorded for the connection: refused again without asking the bank.
    expect(await (await syncOne(partner.key, id, uid, present)).json()).toEqual({
      status: 409,
      reason: "psu_headers_missing",
      missingPsuHeaders: ["X-Psu-Geo-Location"],
    });
    const located = { ...present, "X-Psu-Geo-Location": "GEO:55.6761;12.5683" };
    expect((await syncOne(partner.key, id, uid, located)).status).toBe(200);
    expect((await syncOne(partner.key, id, uid)).status).toBe(200);
  });

  it("a short-consent bank lapses to reconnect_needed", async () => {
    const partner = await connectedPartnerUser({
      bank: { name: "Sandbox Scenario DK: short consent", country: "DK" },
      agoMs: 6 * 60_000,
    });
    const [account] = await accountsOf(partner);
    const response = await syncOne(partner.key, account?.id ?? "", account?.uid ?? "");
    expect(await response.json()).toEqual({ status: 409, reason: "reconnect_needed" });
  });
});

describe("POST /api/sync", () => {
  it("syncs good accounts, lists failures per account, and leaves withdrawn ones out", async () => {
    const partner = await connectedPartnerUser({ agoMs: 3 * DAY_MS });
    const good = await accountsOf(partner);
    const limited = await connectBank(partner.tenantId, partner.keys.publicKeyRawB64, {
      bank: { name: "Sandbox Scenario DK: rate limited", country: "DK" },
      agoMs: ARMED,
    });
    const withdrawn = await connectBank(partner.tenantId, partner.keys.publicKeyRawB64, {
      bank: { name: "Sandbox Scenario DK: consent withdrawn", country: "DK" },
      agoMs: ARMED,
    });
    const unknown = "00000000-0000-4000-8000-000000000000";
    const items = [
      ...good.map((account) => ({ accountId: account.id, uid: account.uid })),
      {
        accountId: limited.stored.accountIds[0] ?? "",
        uid: limited.session.accounts[0]?.uid ?? "",
      },
      {
        accountId: withdrawn.stored.accountIds[0] ?? "",
        uid: withdrawn.session.accounts[0]?.uid ?? "",
      },
      { accountId: unknown, uid: "x" },
    ];
    const response = await syncAll(partner.key, items);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      accounts: number;
      newTransactions: number;
      failures: unknown[];
    };
    expect(body.accounts).toBe(good.length);
    expect(body.newTransactions).toBeGreaterThan(0);
    expect(body.failures).toEqual([
      {
        accountId: limited.stored.accountIds[0],
        reason: "rate_limited",
        bankErrorCode: "ASPSP_RATE_LIMIT_EXCEEDED",
      },
      { accountId: unknown, reason: "not_found", bankErrorCode: null },
    ]);
  });

  it("refuses a body without an items array", async () => {
    const partner = await connectedPartnerUser();
    const response = await bulkSyncRoute.POST(
      post(partner.key, "/api/sync", { items: "all" }),
      params({}),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ status: 400, reason: "invalid_request" });
  });
});

describe("a connection that fails for all its accounts", () => {
  it("a withdrawn consent tells no partner to reconnect: accounts stay syncable, the connection shows Withdrawn", async () => {
    const partner = await connectedPartnerUser({
      bank: { name: "Sandbox Scenario DK: consent withdrawn", country: "DK" },
      agoMs: ARMED,
    });
    const before = await accountsOf(partner);
    expect(before.length).toBeGreaterThan(1);
    const [first] = before;
    const response = await syncOne(partner.key, first?.id ?? "", first?.uid ?? "");
    expect(await response.json()).toEqual({
      status: 409,
      reason: "consent_withdrawn",
      bankErrorCode: "REVOKED_SESSION",
    });

    // The published SDKs report reconnect_needed for needsReconnect=true and
    // post nothing; a reconnect cannot bring a withdrawn consent back.
    const after = await accountsOf(partner);
    expect(after.map((account) => account.needsReconnect)).toEqual(before.map(() => false));
    const listed = await connectionsRoute.GET(
      new Request(`${ISSUER}/api/connections`, { headers: { "X-Api-Key": partner.key } }),
      params({}),
    );
    const [connection] = (await listed.json()) as { status: string; isLive: boolean }[];
    expect(connection).toMatchObject({ status: "Withdrawn", isLive: false });

    // Each account still answers consent_withdrawn, and a bulk sync leaves them all out.
    for (const account of after) {
      const again = await syncOne(partner.key, account.id, account.uid);
      expect(await again.json()).toEqual({ status: 409, reason: "consent_withdrawn" });
    }
    const bulk = await syncAll(
      partner.key,
      after.map((account) => ({ accountId: account.id, uid: account.uid })),
    );
    expect(await bulk.json()).toEqual({ accounts: 0, newTransactions: 0, failures: [] });
  });

  it("reports the bank's error code for every account of a lapsed connection in one bulk sync", async () => {
    const partner = await connectedPartnerUser({
      bank: { name: "Sandbox Scenario DK: reconnect needed", country: "DK" },
      agoMs: ARMED,
    });
    const accounts = await accountsOf(partner);
    expect(accounts.length).toBeGreaterThan(1);
    const response = await syncAll(
      partner.key,
      accounts.map((account) => ({ accountId: account.id, uid: account.uid })),
    );
    expect(await response.json()).toEqual({
      accounts: 0,
      newTransactions: 0,
      failures: accounts.map((account) => ({
        accountId: account.id,
        reason: "reconnect_needed",
        bankErrorCode: "EXPIRED_SESSION",
      })),
    });
  });
});
