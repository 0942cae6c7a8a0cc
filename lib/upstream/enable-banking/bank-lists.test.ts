import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "../../../test/fake-enable-banking";
import { UpstreamError, type Upstream } from "../types";
import { BANK_LIST_LIFETIME_MS } from "./bank-lists";
import { RETRY_POLICY } from "./client";
import { enableBankingUpstream } from "./index";

/**
 * The Enable Banking connector keeps its bank lists (docs/architecture.md#the-bank-list),
 * against a real HTTP server and the connector's own clock: no request within a list's
 * lifetime, a stale list answered at once while one request refreshes it, the last good
 * list kept through a failed refresh.
 */

const APPLICATION_ID = "app-bank-lists";
const keys = applicationKeyPair();
const NORDEA = { name: "Nordea", country: "FI", psu_types: ["personal"] };
const OP = { name: "OP", country: "FI", psu_types: ["personal", "business"] };
const DANSKE = { name: "Danske Bank", country: "DK", psu_types: ["personal"] };
const HOUR = 60 * 60 * 1000;

let fake: FakeEnableBanking;
let clock: Date;
let upstream: Upstream;

beforeAll(async () => {
  fake = await startFakeEnableBanking({ applicationId: APPLICATION_ID, publicKey: keys.publicKey });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.script.length = 0;
  fake.aspsps = [NORDEA, DANSKE];
  clock = new Date();
  // A new connector each test: nothing kept from the one before. Its JWT, signed at the
  // start for 24 hours, is reused while its clock moves hours ahead (the fake checks the
  // token against the real time).
  upstream = enableBankingUpstream({
    apiUrl: fake.url,
    applicationId: APPLICATION_ID,
    privateKey: keys.privateKey,
    jwtLifetimeSeconds: 24 * 60 * 60,
    now: () => clock,
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const later = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};
const listRequests = () => fake.requests.filter((request) => request.path === "/aspsps");
const names = (banks: { name: string }[]) => banks.map((bank) => bank.name);

describe("within a list's lifetime", () => {
  it("a second call, and one just before the lifetime ends, make no request", async () => {
    expect(names(await upstream.listBanks())).toEqual(["Nordea", "Danske Bank"]);
    fake.aspsps = [NORDEA, OP, DANSKE];
    expect(names(await upstream.listBanks())).toEqual(["Nordea", "Danske Bank"]);
    later(BANK_LIST_LIFETIME_MS - 1);
    expect(names(await upstream.listBanks())).toEqual(["Nordea", "Danske Bank"]);
    expect(listRequests()).toHaveLength(1);
  });

  it("each country is asked for with its own query and kept apart from the full list", async () => {
    fake.aspsps = [NORDEA, OP, DANSKE];
    expect(names(await upstream.listBanks({ country: "fi" }))).toEqual(["Nordea", "OP"]);
    expect(names(await upstream.listBanks({ country: "DK" }))).toEqual(["Danske Bank"]);
    expect(names(await upstream.listBanks())).toEqual(["Nordea", "OP", "Danske Bank"]);
    expect(listRequests().map((request) => request.query)).toEqual([
      { country: "FI" },
      { country: "DK" },
      {},
    ]);
    await upstream.listBanks({ country: " Fi " });
    await upstream.listBanks({ country: "DK" });
    await upstream.listBanks();
    expect(listRequests()).toHaveLength(3);
  });

  it("callers that ask together before anything is kept share one request", async () => {
    fake.script.push({ status: 200, body: { aspsps: [NORDEA, DANSKE] }, delayMs: 200 });
    const lists = await Promise.all(Array.from({ length: 5 }, () => upstream.listBanks()));
    for (const list of lists) expect(names(list)).toEqual(["Nordea", "Danske Bank"]);
    expect(listRequests()).toHaveLength(1);
  });

  it("a caller changing its list leaves the kept one as it was", async () => {
    const first = await upstream.listBanks();
    first.reverse().pop();
    expect(names(await upstream.listBanks())).toEqual(["Nordea", "Danske Bank"]);
  });
});

describe("after a list's lifetime", () => {
  it("the stale list is answered at once while one background request refreshes it", async () => {
    await upstream.listBanks();
    fake.aspsps = [NORDEA, OP, DANSKE];
    later(BANK_LIST_LIFETIME_MS + 1);
    // The refresh takes a while: every caller meanwhile gets the last list without waiting.
    fake.script.push({ status: 200, body: { aspsps: [NORDEA, OP, DANSKE] }, delayMs: 600 });
    const started = performance.now();
    const [first, second] = await Promise.all([upstream.listBanks(), upstream.listBanks()]);
    expect(performance.now() - started).toBeLessThan(400);
    expect(names(first)).toEqual(["Nordea", "Danske Bank"]);
    expect(names(second)).toEqual(["Nordea", "Danske Bank"]);
    await expect.poll(() => listRequests().length).toBe(2);

    await expect.poll(async () => names(await upstream.listBanks())).toContain("OP");
    expect(listRequests()).toHaveLength(2);
    // The refreshed list has a lifetime of its own.
    later(BANK_LIST_LIFETIME_MS - 1);
    await upstream.listBanks();
    expect(listRequests()).toHaveLength(2);
  });

  it("a failed refresh keeps the last good list, logs a warning, and a later call tries again", async () => {
    const warnings = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await upstream.listBanks({ country: "FI" });
    fake.aspsps = [NORDEA, OP, DANSKE];
    later(BANK_LIST_LIFETIME_MS + HOUR);
    for (let i = 0; i < RETRY_POLICY.attempts; i += 1) fake.script.push({ status: 500 });

    expect(names(await upstream.listBanks({ country: "FI" }))).toEqual(["Nordea"]);
    // The refresh, retried as every read is, fails on each try.
    await expect.poll(() => fake.script.length, { timeout: 5_000 }).toBe(0);
    await expect
      .poll(() => warnings.mock.calls.map(([line]) => String(line)).join(""), { timeout: 5_000 })
      .toContain('"event":"upstream.bank_list_refresh_failed"');
    const warning = warnings.mock.calls.map(([line]) => String(line)).join("");
    expect(warning).toContain('"country":"FI"');
    expect(warning).toContain('"level":"warn"');
    expect(listRequests()).toHaveLength(1 + RETRY_POLICY.attempts);

    // Still the last good list; this call starts the next refresh, which succeeds.
    expect(names(await upstream.listBanks({ country: "FI" }))).toEqual(["Nordea"]);
    await expect
      .poll(async () => names(await upstream.listBanks({ country: "FI" })))
      .toEqual(["Nordea", "OP"]);
    expect(listRequests()).toHaveLength(2 + RETRY_POLICY.attempts);
  });
});

describe("with nothing kept", () => {
  it("the first load fails as the request does, and the next call asks again", async () => {
    for (let i = 0; i < RETRY_POLICY.attempts; i += 1) fake.script.push({ status: 503 });
    const error = await upstream.listBanks().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).reason).toBe("transient");
    expect(names(await upstream.listBanks())).toEqual(["Nordea", "Danske Bank"]);
    expect(listRequests()).toHaveLength(RETRY_POLICY.attempts + 1);
  });
});
