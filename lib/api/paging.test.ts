import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as transactionsRoute from "@/app/api/accounts/[id]/transactions/route";
import { connectedPartnerUser } from "@/test/bank-data";
import { ISSUER } from "@/test/oauth-fixtures";
import { db } from "../db/client";
import { MAX_OFFSET } from "./paging";

/** Paging (docs/paging.md): cursors, offsets, totals and the accounts list's pages. */

type Item = { id: string; bookingDate: string | null; transactionDate: string | null };
type Page = { items: Item[]; total: number; next: string | null };

const get = (key: string, path: string) =>
  new Request(`${ISSUER}${path}`, { headers: { "X-Api-Key": key } });

async function transactions(key: string, accountId: string, query: string) {
  return transactionsRoute.GET(get(key, `/api/accounts/${accountId}/transactions${query}`), {
    params: Promise.resolve({ id: accountId }),
  });
}

async function page(key: string, accountId: string, query: string): Promise<Page> {
  const response = await transactions(key, accountId, query);
  expect(response.status).toBe(200);
  return (await response.json()) as Page;
}

async function refusal(key: string, accountId: string, query: string) {
  const response = await transactions(key, accountId, query);
  expect(response.status).toBe(400);
  return ((await response.json()) as { error_description: string }).error_description;
}

/** Rows written the way a sync writes them (createMany, duplicates skipped). */
async function addRows(accountId: string, rows: { b: string | null; t: string | null }[]) {
  const { count } = await db().transaction.createMany({
    data: rows.map(({ b, t }) => ({
      accountId,
      currency: "DKK",
      creditDebitIndicator: "DBIT",
      status: b ? "BOOK" : "PDNG",
      bookingDate: b,
      valueDate: b,
      transactionDate: t,
      enc: "AQ",
      dedupeHash: randomBytes(16).toString("hex"),
    })),
    skipDuplicates: true,
  });
  return count;
}

/** A user whose first account also holds pending entries and many entries of one day. */
async function accountWithTies() {
  const user = await connectedPartnerUser();
  const accountId = user.stored.accountIds[0] ?? "";
  const [newest] = await db().transaction.findMany({
    where: { accountId, bookingDate: { not: null } },
    orderBy: { bookingDate: "desc" },
    take: 1,
  });
  const day = newest?.bookingDate ?? "2026-01-01";
  await addRows(accountId, [
    ...Array.from({ length: 4 }, () => ({ b: null, t: null })),
    ...Array.from({ length: 5 }, () => ({ b: null, t: day })),
    ...Array.from({ length: 12 }, () => ({ b: day, t: day })),
    ...Array.from({ length: 6 }, () => ({ b: day, t: null })),
  ]);
  return { ...user, accountId, day };
}

/** (bookingDate DESC NULLS FIRST, transactionDate DESC NULLS FIRST, id ASC). */
function inOrder(a: Item, b: Item): boolean {
  const desc = (x: string | null, y: string | null) =>
    x === y ? 0 : x === null ? -1 : y === null ? 1 : x > y ? -1 : 1;
  const byDate = desc(a.bookingDate, b.bookingDate) || desc(a.transactionDate, b.transactionDate);
  return byDate < 0 || (byDate === 0 && a.id < b.id);
}

async function walkByCursor(key: string, accountId: string, first: string) {
  const pages: Page[] = [await page(key, accountId, first)];
  for (let next = pages[0]?.next; next; next = pages.at(-1)?.next) {
    pages.push(await page(key, accountId, `?limit=7&cursor=${next}`));
  }
  return pages;
}

describe("transactions by cursor", () => {
  it("returns every row exactly once, in the statement's order, ties and pending entries included, as offset paging does", async () => {
    const { key, accountId } = await accountWithTies();
    const total = await db().transaction.count({ where: { accountId } });
    const pages = await walkByCursor(key, accountId, "?limit=7");
    const byCursor = pages.flatMap((each) => each.items);
    expect(byCursor).toHaveLength(total);
    expect(new Set(byCursor.map((item) => item.id)).size).toBe(total);
    for (let i = 1; i < byCursor.length; i += 1) {
      expect(inOrder(byCursor[i - 1] as Item, byCursor[i] as Item)).toBe(true);
    }
    expect(byCursor.slice(0, 9).every((item) => item.bookingDate === null)).toBe(true);
    for (const each of pages) expect(each.total).toBe(total);
    expect(pages.at(-1)?.next).toBeNull();

    const byOffset: Item[] = [];
    for (let offset = 0; offset < total; offset += 7) {
      byOffset.push(...(await page(key, accountId, `?limit=7&offset=${offset}`)).items);
    }
    expect(byOffset.map((item) => item.id)).toEqual(byCursor.map((item) => item.id));
  });

  it("keeps the first page's filter, and its total, on every later page", async () => {
    const { key, accountId, day } = await accountWithTies();
    const from = "2000-01-01";
    const expected = await db().transaction.count({
      where: { accountId, bookingDate: { gte: from, lte: day } },
    });
    const first = await page(key, accountId, `?from=${from}&to=${day}&limit=7`);
    expect(first.total).toBe(expected);
    // A sync adds a row after the first page: the walk goes on with the total it began with.
    await addRows(accountId, [{ b: day, t: day }]);
    const rest = [first];
    for (let next = first.next; next; next = rest.at(-1)?.next ?? null) {
      rest.push(await page(key, accountId, `?to=${day}&limit=50&cursor=${next}`));
    }
    for (const each of rest) expect(each.total).toBe(expected);
    const items = rest.flatMap((each) => each.items);
    expect(items.every((item) => item.bookingDate !== null && item.bookingDate <= day)).toBe(true);
    expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
  });

  it("names the next page in a Link header too, and none on the last page", async () => {
    const { key, accountId } = await accountWithTies();
    const response = await transactions(key, accountId, "?limit=3");
    const { next } = (await response.json()) as Page;
    expect(response.headers.get("link")).toBe(
      `<${ISSUER}/api/accounts/${accountId}/transactions?limit=3&cursor=${next}>; rel="next"`,
    );
    const last = await transactions(key, accountId, `?limit=3&offset=${MAX_OFFSET}`);
    expect(((await last.json()) as Page).next).toBeNull();
    expect(last.headers.get("link")).toBeNull();
  });

  it("refuses a cursor it did not give, one with a changed filter, and a cursor with an offset", async () => {
    const { key, accountId } = await accountWithTies();
    const { next } = await page(key, accountId, "?from=2000-01-01&limit=2");
    const bad = "cursor must be the next value of a previous page, unchanged";
    expect(await refusal(key, accountId, "?cursor=abc")).toBe(bad);
    expect(await refusal(key, accountId, `?cursor=${next}x`)).toBe(bad);
    const forged = Buffer.from(JSON.stringify(["t1", null, null, "x", 1, null, null])).toString(
      "base64url",
    );
    expect(await refusal(key, accountId, `?cursor=${forged}`)).toBe(bad);
    expect(await refusal(key, accountId, `?from=2001-01-01&cursor=${next}`)).toBe(
      "from and to must be those of the page the cursor came from",
    );
    expect(await refusal(key, accountId, `?offset=0&cursor=${next}`)).toBe(
      "give offset or cursor, not both",
    );
    expect((await page(key, accountId, `?from=2000-01-01&cursor=${next}`)).items).toHaveLength(100);
  });

  it("shows one tenant nothing of another's account, whatever the cursor", async () => {
    const mine = await accountWithTies();
    const theirs = await accountWithTies();
    const { next } = await page(theirs.key, theirs.accountId, "?limit=2");
    expect((await transactions(mine.key, theirs.accountId, `?cursor=${next}`)).status).toBe(404);
  });
});

describe("transactions by offset", () => {
  it("answers offsets up to the limit and refuses deeper ones with a 400 that points to the cursor", async () => {
    const { key, accountId } = await accountWithTies();
    const deepest = await page(key, accountId, `?offset=${MAX_OFFSET}`);
    expect(deepest.items).toEqual([]);
    expect(deepest.total).toBe(await db().transaction.count({ where: { accountId } }));
    expect(await refusal(key, accountId, `?offset=${MAX_OFFSET + 1}`)).toBe(
      `offset must be an integer from 0 to ${MAX_OFFSET}; to read deeper, page with cursor: pass the next value of the previous page`,
    );
  });

  it("reads a page past the deferred-join depth the same as the one before it continues", async () => {
    const { key, accountId } = await accountWithTies();
    // Older entries, four a day, enough to page past the depth where reading changes.
    await addRows(
      accountId,
      Array.from({ length: 1_000 }, (_, index) => {
        const day = new Date(Date.UTC(2015, 0, 1) + Math.floor(index / 4) * 86_400_000);
        return { b: day.toISOString().slice(0, 10), t: null };
      }),
    );
    const before = await page(key, accountId, "?limit=10&offset=990");
    const across = await page(key, accountId, "?limit=20&offset=990");
    const after = await page(key, accountId, "?limit=10&offset=1000");
    expect(across.items.map((item) => item.id)).toEqual(
      [...before.items, ...after.items].map((item) => item.id),
    );
  });
});

describe("total", () => {
  it("is the account's kept count, right after rows are added, skipped as duplicates and deleted", async () => {
    const { key, accountId } = await accountWithTies();
    const count = () => db().transaction.count({ where: { accountId } });
    expect((await page(key, accountId, "?limit=1")).total).toBe(await count());

    const { id: _id, ...existing } = await db().transaction.findFirstOrThrow({
      where: { accountId },
    });
    const duplicate = await db().transaction.createMany({ data: [existing], skipDuplicates: true });
    expect(duplicate.count).toBe(0);
    expect(await addRows(accountId, [{ b: null, t: null }])).toBe(1);
    expect((await page(key, accountId, "?limit=1")).total).toBe(await count());

    await db().transaction.deleteMany({ where: { accountId, bookingDate: null } });
    expect((await page(key, accountId, "?limit=1")).total).toBe(await count());
    const { transactionCount } = await db().account.findUniqueOrThrow({ where: { id: accountId } });
    expect(transactionCount).toBe(await count());
  });

  it("counts a filtered range: rows with a booking date inside it, never pending ones", async () => {
    const { key, accountId, day } = await accountWithTies();
    const filtered = await page(key, accountId, `?to=${day}&limit=1`);
    expect(filtered.total).toBe(
      await db().transaction.count({ where: { accountId, bookingDate: { lte: day } } }),
    );
    const onTheDay = await page(key, accountId, `?from=${day}&to=${day}`);
    expect(onTheDay.total).toBe(
      await db().transaction.count({ where: { accountId, bookingDate: day } }),
    );
    expect(onTheDay.total).toBeGreaterThanOrEqual(18);
  });
});

describe("GET /api/accounts pages", () => {
  const list = (key: string, query = "") =>
    accountsRoute.GET(get(key, `/api/accounts${query}`), {});

  it("without parameters is the whole list as a JSON array; with limit, pages of it that hold each account once", async () => {
    const { key, stored } = await connectedPartnerUser();
    const whole = (await (await list(key)).json()) as { id: string }[];
    expect(Array.isArray(whole)).toBe(true);
    expect(whole.length).toBe(stored.accountIds.length);
    expect(whole.length).toBeGreaterThan(1);

    const seen: { id: string }[] = [];
    let response = await list(key, "?limit=1");
    for (;;) {
      const body = (await response.json()) as { items: { id: string }[]; next: string | null };
      expect(body.items).toHaveLength(1);
      seen.push(...body.items);
      if (!body.next) {
        expect(response.headers.get("link")).toBeNull();
        break;
      }
      expect(response.headers.get("link")).toBe(
        `<${ISSUER}/api/accounts?limit=1&cursor=${body.next}>; rel="next"`,
      );
      response = await list(key, `?limit=1&cursor=${body.next}`);
    }
    expect(seen).toEqual(whole);
  });

  it.each([
    ["?limit=0", "limit must be an integer from 1 to 500"],
    ["?page=2", "unknown parameter page; use limit and cursor"],
    ["?cursor=nonsense", "cursor must be the next value of a previous page, unchanged"],
    ["?limit=2&limit=3", "limit is given twice"],
  ])("refuses %s with a 400 saying why", async (query, message) => {
    const { key } = await connectedPartnerUser();
    const response = await list(key, query);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid_request", error_description: message });
  });
});
