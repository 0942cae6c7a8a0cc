import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inSyncSlot } from "../banking/budget";
import { tenantSubject } from "../banking/tenants";
import { generateKeyPair } from "../crypto/envelope";
import { db } from "../db/client";
import { setSetting } from "../env";
import { approveSandboxAuthorization } from "../upstream/sandbox/consent";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  signedInCookie,
  startTestFlow,
} from "../../test/oauth-fixtures";
import { findIngestStatus, INGEST_STALE_MS, settleIngests } from "./bank-ingest";
import { handleBankCallback, handleBankProgressStatus, handleBankStart } from "./banks";
import { csrfToken } from "./csrf";
import { attachUser } from "./flows";

/**
 * The storing of a bank consent after the response: its status, readable
 * only by the flow's own browser; completing, failing cleanly, waiting for a
 * sync slot, and a process that died mid-way.
 */

beforeAll(() => setSetting("SYNC_CONCURRENCY", "1"));
afterAll(() => setSetting("SYNC_CONCURRENCY", ""));

async function signedInFlow() {
  const client = await createTestClient();
  const keys = generateKeyPair();
  const user = await db().user.update({
    where: { id: (await createTestUser()).id },
    data: { publicKey: keys.publicKeyRawB64 },
  });
  const { flowId, setCookie } = await startTestFlow(client, { state: "s" });
  const subject = tenantSubject(client.partnerId, user);
  await attachUser({ id: flowId, renewConnectionId: null }, user, "user", subject);
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  const flowCookie = setCookie.split(";")[0] ?? "";
  const session = await signedInCookie(user.id);
  return { flow, flowCookie, session, cookie: `${flowCookie}; ${session}`, subject };
}

type Browser = Awaited<ReturnType<typeof signedInFlow>>;

/** Picks Sandbox Fjordbank NO and returns the URL the bank's Approve (or a forged code) leads to. */
async function approvedAtBank(browser: Browser, options: { forgeCode?: boolean } = {}) {
  const response = await handleBankStart(
    new Request(`${ISSUER}/banks/start`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: ISSUER,
        Cookie: browser.cookie,
      },
      body: new URLSearchParams({
        csrf: csrfToken(browser.flow, "bank"),
        bank: "Sandbox Fjordbank NO",
        country: "NO",
        psuType: "personal",
      }).toString(),
    }),
  );
  const authorization =
    new URL(response.headers.get("location") ?? "").searchParams.get("authorization") ?? "";
  const back = new URL(approveSandboxAuthorization(authorization) ?? "");
  if (options.forgeCode) back.searchParams.set("code", "forged");
  return back.href;
}

const callback = (browser: Browser, url: string) =>
  handleBankCallback(new Request(url, { headers: { Cookie: browser.cookie } }));

async function status(cookie: string) {
  const response = await handleBankProgressStatus(
    new Request(`${ISSUER}/banks/progress/status`, { headers: { Cookie: cookie } }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const connectionsOf = (subject: string) =>
  db().connection.findMany({
    where: { tenant: { subject } },
    include: { accounts: { include: { _count: { select: { transactions: true } } } } },
  });

describe("the progress status", () => {
  it("answers only the flow's own browser: its flow cookie and its signed-in user", async () => {
    const mine = await signedInFlow();
    const other = await signedInFlow();
    await callback(mine, await approvedAtBank(mine));
    expect((await status(mine.cookie)).status).toBe(200);
    expect(await status("")).toMatchObject({ status: 403, body: { error: "forbidden" } });
    // The flow cookie without its user's session, or with another user's session.
    expect((await status(mine.flowCookie)).status).toBe(403);
    expect((await status(`${mine.flowCookie}; ${other.session}`)).status).toBe(403);
    // Another flow's browser has no ingest of its own.
    expect(await status(other.cookie)).toMatchObject({ status: 404 });
    await settleIngests();
  });
});

describe("storing a consent after the response", () => {
  it("answers at once with the progress screen, then stores accounts, balances and the whole history", async () => {
    const browser = await signedInFlow();
    const response = await callback(browser, await approvedAtBank(browser));
    expect(response.headers.get("location")).toBe("/banks/progress");
    const early = await status(browser.cookie);
    expect(early.status).toBe(200);
    expect(["connecting", "waiting", "accounts", "history", "done"]).toContain(early.body.state);

    await settleIngests();
    const done = await status(browser.cookie);
    expect(done.body).toMatchObject({ state: "done", ready: true });
    expect(done.body.accountsDone).toBe(done.body.accountsTotal);
    expect(done.body.historyDone).toBe(done.body.accountsTotal);
    const [connection] = await connectionsOf(browser.subject);
    expect(connection?.accounts.length).toBe(done.body.accountsTotal);
    for (const account of connection?.accounts ?? []) {
      expect(account.historyPending).toBe(false);
      expect(account._count.transactions).toBeGreaterThan(0);
    }
  });

  it("fails cleanly: a code the bank refuses stores nothing and reads as failed", async () => {
    const browser = await signedInFlow();
    await callback(browser, await approvedAtBank(browser, { forgeCode: true }));
    await settleIngests();
    expect((await status(browser.cookie)).body).toMatchObject({ state: "failed", ready: false });
    expect(await connectionsOf(browser.subject)).toEqual([]);
    const row = await findIngestStatus(browser.flow.id);
    expect(row?.failure).toBe("failed");
    expect(row?.bank).toMatchObject({ name: "Sandbox Fjordbank NO", country: "NO" });
  });

  it("waits for a sync slot, saying so, instead of failing", async () => {
    const browser = await signedInFlow();
    let release!: () => void;
    const held = inSyncSlot(() => new Promise<void>((resolve) => (release = resolve)));
    await callback(browser, await approvedAtBank(browser));
    for (let i = 0; i < 200 && (await status(browser.cookie)).body.state !== "waiting"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await status(browser.cookie)).body.state).toBe("waiting");
    expect(await connectionsOf(browser.subject)).toEqual([]);
    release();
    await held;
    await settleIngests();
    expect((await status(browser.cookie)).body).toMatchObject({ state: "done", ready: true });
    expect(await connectionsOf(browser.subject)).toHaveLength(1);
  });

  it("reads as failed once a process that died mid-way stopped its heartbeat", async () => {
    const browser = await signedInFlow();
    await callback(browser, await approvedAtBank(browser));
    await settleIngests();
    const row = await db().bankIngest.findFirstOrThrow({ where: { flowId: browser.flow.id } });
    const silent = new Date(Date.now() - INGEST_STALE_MS - 1000);
    // Fetching the accounts when the process died: nothing was committed; try again.
    await db().bankIngest.update({
      where: { id: row.id },
      data: { state: "accounts", heartbeatAt: silent },
    });
    expect((await status(browser.cookie)).body).toMatchObject({ state: "failed", ready: false });
    expect((await findIngestStatus(browser.flow.id))?.failure).toBe("interrupted");
    // Still within the heartbeat: still running.
    await db().bankIngest.update({ where: { id: row.id }, data: { heartbeatAt: new Date() } });
    expect((await status(browser.cookie)).body).toMatchObject({ state: "accounts" });
    // Storing the history when it died: the accounts are there, the flow goes on.
    await db().bankIngest.update({
      where: { id: row.id },
      data: { state: "history", heartbeatAt: silent },
    });
    expect((await status(browser.cookie)).body).toMatchObject({ state: "done", ready: true });
  });
});
