import { describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as transactionsRoute from "@/app/api/accounts/[id]/transactions/route";
import * as connectionsRoute from "@/app/api/connections/route";
import * as catchAllRoute from "@/app/api/[...path]/route";
import { openJson } from "../crypto/envelope";
import { findSandboxAccount, toUpstreamAccount } from "../upstream/sandbox/accounts";
import { connectedPartnerUser } from "../../test/bank-data";
import { ISSUER } from "../../test/oauth-fixtures";
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from "./paging";

/** The data API as a partner sees it (/docs/data): JSON over the wire, envelopes to open. */

type AccountWire = {
  id: string;
  aspspName: string;
  currency: string;
  needsReconnect: boolean;
  balances: { type: string; currency: string; enc: string }[];
  enc: string;
  displayNameEnc: string;
  uidEnc: string;
};
type TransactionWire = {
  id: string;
  bookingDate: string;
  creditDebitIndicator: string;
  enc: string;
};

const get = (key: string, path: string) =>
  new Request(`${ISSUER}${path}`, { headers: { "X-Api-Key": key } });
const params = (values: Record<string, string | string[]>) => ({ params: Promise.resolve(values) });

async function accounts(key: string): Promise<AccountWire[]> {
  // Next passes no params to a route without dynamic segments.
  const response = await accountsRoute.GET(get(key, "/api/accounts"), {});
  expect(response.status).toBe(200);
  return (await response.json()) as AccountWire[];
}

function transactions(key: string, accountId: string, query = "") {
  return transactionsRoute.GET(
    get(key, `/api/accounts/${accountId}/transactions${query}`),
    params({ id: accountId }),
  );
}

async function page(key: string, accountId: string, query = "") {
  const response = await transactions(key, accountId, query);
  expect(response.status).toBe(200);
  return (await response.json()) as { items: TransactionWire[]; total: number };
}

describe("GET /api/accounts", () => {
  it("lists the tenant's accounts with envelopes that open to the bank's data, no plaintext", async () => {
    const { key, keys, session } = await connectedPartnerUser();
    const listed = await accounts(key);
    expect(listed).toHaveLength(session.accounts.length);
    for (const account of listed) {
      const { uid } = openJson<{ uid: string }>(keys.privateKeyPkcs8B64, account.uidEnc);
      const held = findSandboxAccount(uid);
      if (!held) throw new Error("uid names no sandbox account");
      const { ownerName, iban, bban, accountName, product, displayName } = toUpstreamAccount(held);
      expect(openJson(keys.privateKeyPkcs8B64, account.enc)).toEqual({
        ownerName,
        iban,
        bban,
        accountName,
        product,
      });
      expect(openJson(keys.privateKeyPkcs8B64, account.displayNameEnc)).toEqual({ displayName });
      expect(account).toMatchObject({
        aspspName: "Sandbox Nordbank DK",
        aspspCountry: "DK",
        currency: "DKK",
        needsReconnect: false,
      });
      expect(account.balances.map((balance) => balance.type)).toEqual(["ITAV", "ITBD"]);
      expect(JSON.stringify(account)).not.toContain(iban ?? "-");
    }
  });

  it("shows one tenant nothing of another's", async () => {
    const first = await connectedPartnerUser();
    const second = await connectedPartnerUser();
    const theirs = (await accounts(second.key))[0]?.id ?? "";
    expect((await accounts(first.key)).map((account) => account.id)).not.toContain(theirs);
    expect((await transactions(first.key, theirs)).status).toBe(404);
    expect((await transactions(first.key, "not-a-uuid")).status).toBe(404);
  });

  it("answers 401 without a key and 403 on a path outside the five operations", async () => {
    const { key } = await connectedPartnerUser();
    const response = await accountsRoute.GET(new Request(`${ISSUER}/api/accounts`), params({}));
    expect(response.status).toBe(401);
    const outside = await accountsRoute.POST(
      new Request(`${ISSUER}/api/accounts`, { method: "POST", headers: { "X-Api-Key": key } }),
    );
    expect(outside.status).toBe(403);
    expect(outside.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
    const openConsents = await catchAllRoute.GET(get(key, "/api/connections/open-consents"));
    expect(openConsents.status).toBe(403);
  });
});

describe("GET /api/accounts/{id}/transactions", () => {
  it("pages newest first with the right total, and filters by booking date", async () => {
    const { key, keys } = await connectedPartnerUser();
    const [account] = await accounts(key);
    const id = account?.id ?? "";
    const first = await page(key, id);
    expect(first.items).toHaveLength(Math.min(DEFAULT_PAGE_SIZE, first.total));
    expect(first.total).toBeGreaterThan(DEFAULT_PAGE_SIZE);

    const all: TransactionWire[] = [];
    for (let offset = 0; offset < first.total; offset += 70) {
      const next = await page(key, id, `?limit=70&offset=${offset}`);
      expect(next.total).toBe(first.total);
      all.push(...next.items);
    }
    expect(all).toHaveLength(first.total);
    expect(new Set(all.map((item) => item.id)).size).toBe(first.total);
    const dates = all.map((item) => item.bookingDate);
    expect(dates).toEqual([...dates].sort().reverse());
    const payload = openJson<{ amount: string }>(keys.privateKeyPkcs8B64, all[0]?.enc ?? "");
    expect(payload.amount).toMatch(/^\d+\.\d{2}$/);

    const from = dates[Math.floor(dates.length / 2)] ?? "";
    const to = dates[Math.floor(dates.length / 4)] ?? "";
    const filtered = await page(key, id, `?from=${from}&to=${to}&limit=${MAX_PAGE_SIZE}`);
    const expected = all.filter((item) => item.bookingDate >= from && item.bookingDate <= to);
    expect(filtered.total).toBe(expected.length);
    expect(filtered.items.map((item) => item.id).sort()).toEqual(
      expected.map((item) => item.id).sort(),
    );
  });

  it.each([
    ["?from=2026-02-30", "from must be a calendar date as YYYY-MM-DD"],
    ["?to=yesterday", "to must be a calendar date as YYYY-MM-DD"],
    ["?from=0000-00-00", "from must be a calendar date as YYYY-MM-DD"],
    ["?to=2026-13-32", "to must be a calendar date as YYYY-MM-DD"],
    ["?from=2026-05-02&to=2026-05-01", "from must not be after to"],
    ["?limit=0", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`],
    [`?limit=${MAX_PAGE_SIZE + 1}`, `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`],
    ["?offset=-1", `offset must be an integer from 0 to ${MAX_OFFSET}`],
    ["?limit=1.5", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`],
    ["?limit=5&limit=6", "limit is given twice"],
    ["?page=2", "unknown parameter page; use from, to, limit, offset and cursor"],
  ])("refuses %s with 400 and a clear message", async (query, message) => {
    const { key } = await connectedPartnerUser();
    const [account] = await accounts(key);
    const response = await transactions(key, account?.id ?? "", query);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid_request", error_description: message });
  });
});

describe("GET /api/connections", () => {
  it("lists the tenant's consents with isLive and their accounts", async () => {
    const { key, stored, session } = await connectedPartnerUser();
    const response = await connectionsRoute.GET(get(key, "/api/connections"), params({}));
    expect(response.status).toBe(200);
    const [connection, ...others] = (await response.json()) as Record<string, unknown>[];
    expect(others).toEqual([]);
    expect(connection).toEqual({
      sessionId: stored.connectionId,
      aspspName: "Sandbox Nordbank DK",
      aspspCountry: "DK",
      validUntil: session.validUntil.toISOString(),
      status: "Active",
      accountCount: stored.accountIds.length,
      lastSyncedAt: expect.any(String),
      psuType: "personal",
      isLive: true,
      accountIds: stored.accountIds,
    });
  });
});
