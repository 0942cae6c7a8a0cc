import { describe, expect, it } from "vitest";
import { generateKeyPair, openJson } from "../crypto/envelope";
import { db } from "../db/client";
import {
  approveSandboxAuthorization,
  denySandboxAuthorization,
  describeSandboxAuthorization,
} from "../upstream/sandbox/consent";
import { syncAccount } from "../banking/sync";
import { settleIngests } from "./bank-ingest";
import { handleBankCallback, handleBankFinish, handleBankRenew, handleBankStart } from "./banks";
import { csrfToken } from "./csrf";
import { attachUser } from "./flows";
import { tenantSubject } from "../banking/tenants";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  signedInCookie,
  startTestFlow,
} from "../../test/oauth-fixtures";

const BANK = { country: "NO", bank: "Sandbox Fjordbank NO", psuType: "personal" };

type Person = {
  client: Awaited<ReturnType<typeof createTestClient>>;
  user: Awaited<ReturnType<typeof createTestUser>>;
  keys: ReturnType<typeof generateKeyPair>;
};

async function newPerson(): Promise<Person> {
  const client = await createTestClient();
  const keys = generateKeyPair();
  const user = await createTestUser();
  await db().user.update({ where: { id: user.id }, data: { publicKey: keys.publicKeyRawB64 } });
  return { client, user, keys };
}

/** A signed-in browser in a user-key flow whose user already holds a key. */
async function signedInFlow(person?: Person, renewConnectionId: string | null = null) {
  const { client, user, keys } = person ?? (await newPerson());
  const { flowId, setCookie } = await startTestFlow(client, { state: "s", renewConnectionId });
  const subject = tenantSubject(client.partnerId, user);
  const next = await attachUser(
    { id: flowId, renewConnectionId },
    { id: user.id, publicKey: keys.publicKeyRawB64 },
    "user",
    subject,
  );
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  const cookie = `${setCookie.split(";")[0]}; ${await signedInCookie(user.id)}`;
  return { flow, cookie, keys, subject, next, person: { client, user, keys } };
}

function start(cookie: string, form: Record<string, string>, origin = ISSUER) {
  return handleBankStart(
    new Request(`${ISSUER}/banks/start`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: origin,
        Cookie: cookie,
      },
      body: new URLSearchParams(form).toString(),
    }),
  );
}

const callback = (cookie: string, url: string) =>
  handleBankCallback(new Request(url, { headers: { Cookie: cookie } }));

/** The callback answers with the progress screen at once; the storing runs after it. */
async function approvedAndStored(cookie: string, url: string): Promise<string | null> {
  const response = await callback(cookie, url);
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe("/banks/progress");
  await settleIngests();
  const finish = await handleBankFinish(
    new Request(`${ISSUER}/banks/finish`, { headers: { Cookie: cookie } }),
  );
  return finish.headers.get("location");
}

/** Starts at the bank and returns the sandbox authorization id it redirected to. */
async function startAtBank(
  flow: { id: string; csrfSecret: string },
  cookie: string,
): Promise<string> {
  const response = await start(cookie, { ...BANK, csrf: csrfToken(flow, "bank") });
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location") ?? "");
  expect(location.pathname).toBe("/sandbox/authorize");
  return location.searchParams.get("authorization") ?? "";
}

const connectionsOf = (subject: string) =>
  db().connection.findMany({ where: { tenant: { subject } }, include: { accounts: true } });

describe("bank picker: start and callback", () => {
  it("stores the approved consent sealed to the user's key and moves on to consent", async () => {
    const { flow, cookie, keys, subject } = await signedInFlow();
    const authorization = await startAtBank(flow, cookie);
    const next = await approvedAndStored(cookie, approveSandboxAuthorization(authorization) ?? "");
    expect(next).toBe("/consent");

    const [connection, ...others] = await connectionsOf(subject);
    expect(others).toEqual([]);
    expect(connection).toMatchObject({ aspspName: BANK.bank, aspspCountry: "NO" });
    for (const account of connection?.accounts ?? []) {
      expect(openJson<{ iban: string }>(keys.privateKeyPkcs8B64, account.enc ?? "").iban).toMatch(
        /^NO\d{13}$/,
      );
    }
  });

  it("uses a callback once: a replay stores nothing more and says the bank is connected", async () => {
    const { flow, cookie, subject } = await signedInFlow();
    const back = approveSandboxAuthorization(await startAtBank(flow, cookie)) ?? "";
    expect(await approvedAndStored(cookie, back)).toBe("/consent");
    const replay = await callback(cookie, back);
    expect(replay.headers.get("location")).toBe("/banks?notice=connected");
    expect(await connectionsOf(subject)).toHaveLength(1);
  });

  it("approving again at the bank after a denial is still a failure, not a connection", async () => {
    const { flow, cookie, subject } = await signedInFlow();
    const authorization = await startAtBank(flow, cookie);
    const denied = denySandboxAuthorization(authorization) ?? "";
    expect((await callback(cookie, denied)).headers.get("location")).toBe("/banks?notice=denied");
    const again = await callback(cookie, approveSandboxAuthorization(authorization) ?? "");
    expect(again.headers.get("location")).toBe("/banks?notice=failed");
    expect(await connectionsOf(subject)).toEqual([]);
  });

  it("sends a denial back to the picker with its notice", async () => {
    const { flow, cookie, subject } = await signedInFlow();
    const back = denySandboxAuthorization(await startAtBank(flow, cookie)) ?? "";
    const response = await callback(cookie, back);
    expect(response.headers.get("location")).toBe("/banks?notice=denied");
    expect(await connectionsOf(subject)).toEqual([]);
  });

  it("refuses a callback that belongs to another browser's flow", async () => {
    const mine = await signedInFlow();
    const theirs = await signedInFlow();
    const back = approveSandboxAuthorization(await startAtBank(theirs.flow, theirs.cookie)) ?? "";
    const response = await callback(mine.cookie, back);
    expect(response.headers.get("location")).toBe("/banks?notice=failed");
    expect(await connectionsOf(mine.subject)).toEqual([]);
    expect(await connectionsOf(theirs.subject)).toEqual([]);
  });

  it("refuses a start without the flow's CSRF token or from a foreign origin", async () => {
    const { flow, cookie } = await signedInFlow();
    expect((await start(cookie, BANK)).status).toBe(403);
    expect((await start(cookie, { ...BANK, csrf: "forged" })).status).toBe(403);
    const csrf = csrfToken(flow, "bank");
    expect((await start(cookie, { ...BANK, csrf }, "https://evil.example")).status).toBe(403);
  });

  it("sends an unknown bank or a PSU type the bank lacks back to the picker", async () => {
    const { flow, cookie } = await signedInFlow();
    const csrf = csrfToken(flow, "bank");
    for (const form of [
      { ...BANK, bank: "No Such Bank" },
      { country: "DK", bank: "Sandbox Andelskasse DK", psuType: "business" },
    ]) {
      const response = await start(cookie, { ...form, csrf });
      expect(response.headers.get("location")).toBe("/banks?notice=failed");
    }
  });
});

describe("renewing a connection (renew_connection)", () => {
  const uidsOf = async (connectionId: string, privateKey: string) =>
    Object.fromEntries(
      (await db().account.findMany({ where: { connectionId } })).map((account) => [
        account.id,
        openJson<{ uid: string }>(privateKey, account.uidEnc ?? "").uid,
      ]),
    );

  it("goes straight to the bank, keeps the connection and its accounts, and outdates old uids", async () => {
    const first = await signedInFlow();
    const authorization = await startAtBank(first.flow, first.cookie);
    await approvedAndStored(first.cookie, approveSandboxAuthorization(authorization) ?? "");
    const [connection] = await connectionsOf(first.subject);
    if (!connection) throw new Error("not connected");
    const privateKey = first.keys.privateKeyPkcs8B64;
    const oldUids = await uidsOf(connection.id, privateKey);
    const transactionsBefore = await db().transaction.count({
      where: { account: { connectionId: connection.id } },
    });

    const renewal = await signedInFlow(first.person, connection.id);
    expect(renewal.next.path).toBe("/banks/renew");
    const renew = await handleBankRenew(
      new Request(`${ISSUER}/banks/renew`, { headers: { Cookie: renewal.cookie } }),
    );
    const bankPage = new URL(renew.headers.get("location") ?? "");
    expect(bankPage.pathname).toBe("/sandbox/authorize");
    const authorizationId = bankPage.searchParams.get("authorization") ?? "";
    expect(describeSandboxAuthorization(authorizationId)?.aspsp.name).toBe(BANK.bank);
    const back = await approvedAndStored(
      renewal.cookie,
      approveSandboxAuthorization(authorizationId) ?? "",
    );
    expect(back).toBe("/consent");

    const after = await connectionsOf(first.subject);
    expect(after.map((row) => row.id)).toEqual([connection.id]);
    const newUids = await uidsOf(connection.id, privateKey);
    expect(Object.keys(newUids).sort()).toEqual(Object.keys(oldUids).sort());
    for (const [accountId, uid] of Object.entries(oldUids)) {
      expect(newUids[accountId]).not.toBe(uid);
      const outdated = await syncAccount({ tenantId: connection.tenantId, accountId, uid });
      expect(outdated).toMatchObject({ ok: false, reason: "uid_outdated" });
      const fresh = await syncAccount({
        tenantId: connection.tenantId,
        accountId,
        uid: newUids[accountId] ?? "",
      });
      expect(fresh).toMatchObject({ ok: true, newTransactions: 0 });
    }
    // The same history again, not a second copy of it.
    expect(
      await db().transaction.count({ where: { account: { connectionId: connection.id } } }),
    ).toBe(transactionsBefore);
  });

  it("ignores a renewal of another tenant's connection", async () => {
    const theirs = await signedInFlow();
    await approvedAndStored(
      theirs.cookie,
      approveSandboxAuthorization(await startAtBank(theirs.flow, theirs.cookie)) ?? "",
    );
    const [connection] = await connectionsOf(theirs.subject);
    const mine = await signedInFlow(undefined, connection?.id ?? null);
    expect(mine.next.path).toBe("/banks");
    const renew = await handleBankRenew(
      new Request(`${ISSUER}/banks/renew`, { headers: { Cookie: mine.cookie } }),
    );
    expect(renew.headers.get("location")).toBe("/banks");
  });
});
