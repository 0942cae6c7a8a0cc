import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import { findSessionUser, type SignedInUser } from "../auth/sessions";
import {
  handleAccountStartOver,
  handleDeleteEverything,
  handleEndAccess,
} from "../account/handlers";
import { accountCsrfToken } from "../account/session";
import { ensureTenant, tenantSubject } from "../banking/tenants";
import { generateKeyPair } from "../crypto/envelope";
import { db } from "../db/client";
import { settleIngests } from "../flow/bank-ingest";
import { handleBankCallback, handleBankRenew, handleBankStart } from "../flow/banks";
import { csrfToken } from "../flow/csrf";
import { attachUser } from "../flow/flows";
import { handleRevokeRequest } from "../oauth/revoke";
import { handleTokenRequest } from "../oauth/token";
import { SANDBOX_SCENARIO_GRACE_MS } from "../upstream/sandbox";
import { approveSandboxAuthorization } from "../upstream/sandbox/consent";
import { connectBank, partnerTenantOf } from "../../test/bank-data";
import {
  basicAuthorization,
  createTestClient,
  createTestUser,
  formRequest,
  ISSUER,
  issueCode,
  issueCodeForUser,
  mintApiKey,
  newVerifier,
  signedInCookie,
  startTestFlow,
  tokenRequest,
  type TestClient,
} from "../../test/oauth-fixtures";
import { recordConnectionExpired, recordConnectionExpiring } from "./producers";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType, type WebhookPayload } from "./types";

/**
 * Every event type is recorded by the action that causes it
 * (docs/events.md#types): one event for a partner with an endpoint that asked
 * for the type, none for a partner without one, none for a house client's
 * tenant.
 */

const DAY_MS = 86_400_000;
const ARMED = SANDBOX_SCENARIO_GRACE_MS + 60_000;

/** A partner that has an endpoint for every type; a partner without one; a house client. */
type Kind = "subscribed" | "unsubscribed" | "house";
const KINDS: Kind[] = ["subscribed", "unsubscribed", "house"];

async function clientOf(kind: Kind): Promise<TestClient> {
  const client = await createTestClient({ house: kind === "house" });
  if (kind === "subscribed") {
    await db().webhookEndpoint.create({
      data: {
        partnerId: client.partnerId ?? "",
        url: "https://hooks.example.com/bank-connect",
        eventTypes: [...WEBHOOK_EVENT_TYPES],
        secretSealed: "sealed-secret",
      },
    });
  }
  return client;
}

/** The events naming this subject, of one type. */
async function eventsFor(user: string, type: WebhookEventType) {
  const rows = await db().webhookEvent.findMany({
    where: { type, payload: { path: ["data", "user"], equals: user } },
    include: { deliveries: true },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((row) => ({ ...row, payload: row.payload as unknown as WebhookPayload }));
}

/** Exactly one event of `type` for a subscribed partner, with `data`; none otherwise. */
async function expectEvent(
  kind: Kind,
  client: TestClient,
  user: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
) {
  const events = await eventsFor(user, type);
  if (kind !== "subscribed") {
    expect(events).toEqual([]);
    return;
  }
  expect(events).toHaveLength(1);
  const [event] = events;
  expect(event?.partnerId).toBe(client.partnerId);
  expect(event?.payload.type).toBe(type);
  expect(event?.payload.data).toEqual({ client_id: client.clientId, user, ...data });
  expect(event?.deliveries).toHaveLength(1);
}

/** A person who granted the client access (a key from the real token endpoint). */
async function grantee(kind: Kind) {
  const client = await clientOf(kind);
  const { key, user } = await mintApiKey(client);
  const tenant = await partnerTenantOf(client, user);
  const keys = generateKeyPair();
  const sealing = tenant.sealingKey
    ? { sealingKey: tenant.sealingKey, sealingKeyKind: tenant.sealingKeyKind }
    : { sealingKey: keys.publicKeyRawB64, sealingKeyKind: "user" as const };
  await db().tenant.update({ where: { id: tenant.id }, data: sealing });
  const cookie = await signedInCookie(user.id);
  const session = (await findSessionUser(cookie.slice(cookie.indexOf("=") + 1))) as SignedInUser;
  return {
    kind,
    client,
    key,
    user,
    tenantId: tenant.id,
    subject: tenant.subject,
    sealingKey: sealing.sealingKey,
    cookie,
    session,
  };
}

type Grantee = Awaited<ReturnType<typeof grantee>>;

/** A grantee with a sandbox bank connected: its accounts' ids and uids in the bank's order. */
async function connected(kind: Kind, bank?: { name: string; country: string }, agoMs = 0) {
  const person = await grantee(kind);
  const { session, stored } = await connectBank(person.tenantId, person.sealingKey, {
    ...(bank && { bank }),
    agoMs,
  });
  const accounts = stored.accountIds.map((id, index) => ({
    id,
    uid: session.accounts[index]?.uid ?? "",
  }));
  return { ...person, connectionId: stored.connectionId, accounts };
}

const accountPost = (path: string, person: Grantee, body: Record<string, unknown>) =>
  new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: ISSUER, Cookie: person.cookie },
    body: JSON.stringify(body),
  });

const sync = (key: string, account: { id: string; uid: string }) =>
  accountSyncRoute.POST(
    new Request(`${ISSUER}/api/accounts/${account.id}/sync`, {
      method: "POST",
      headers: { "X-Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ uid: account.uid }),
    }),
    { params: Promise.resolve({ id: account.id }) },
  );

describe("access.granted", () => {
  it.each(KINDS)("is recorded when the code is exchanged for a key (%s)", async (kind) => {
    const client = await clientOf(kind);
    const verifier = newVerifier();
    const { code, user } = await issueCode(client, verifier);
    const response = await handleTokenRequest(tokenRequest(client, code, verifier));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { user: string };
    expect(body.user).toBe(tenantSubject(client.partnerId, user));
    await expectEvent(kind, client, body.user, "access.granted", {});
  });

  it("is recorded only for the endpoint's partner, and only for the types it asked for", async () => {
    const client = await createTestClient();
    await db().webhookEndpoint.create({
      data: {
        partnerId: client.partnerId ?? "",
        url: "https://hooks.example.com/ended-only",
        eventTypes: ["access.ended"],
        secretSealed: "sealed-secret",
      },
    });
    const { user } = await mintApiKey(client);
    expect(await eventsFor(tenantSubject(client.partnerId, user), "access.granted")).toEqual([]);
  });
});

describe("access.ended", () => {
  it.each(["subscribed", "unsubscribed"] as const)(
    "reason person: the person ends the partner's access at My access (%s)",
    async (kind) => {
      const person = await grantee(kind);
      const response = await handleEndAccess(
        accountPost("/account/access/end", person, {
          csrf: accountCsrfToken(person.session, "end-access"),
          partnerId: person.client.partnerId,
        }),
      );
      expect(response.status).toBe(200);
      await expectEvent(kind, person.client, person.subject, "access.ended", { reason: "person" });
    },
  );

  it.each(KINDS)("reason start_over: the person starts over with a new key (%s)", async (kind) => {
    const person = await grantee(kind);
    const old = generateKeyPair().publicKeyRawB64;
    const next = generateKeyPair().publicKeyRawB64;
    await db().user.update({ where: { id: person.user.id }, data: { publicKey: old } });
    await db().tenant.update({
      where: { id: person.tenantId },
      data: { sealingKey: old, sealingKeyKind: "user" },
    });
    const response = await handleAccountStartOver(
      accountPost("/account/key/start-over", person, {
        csrf: accountCsrfToken(person.session, "start-over"),
        replaces: old,
        publicKey: next,
      }),
    );
    expect(response.status).toBe(200);
    await expectEvent(kind, person.client, person.subject, "access.ended", {
      reason: "start_over",
    });
  });

  it.each(KINDS)(
    "reason account_deleted: the person deletes everything, and the event outlives the rows (%s)",
    async (kind) => {
      const person = await grantee(kind);
      const response = await handleDeleteEverything(
        accountPost("/account/delete", person, {
          csrf: accountCsrfToken(person.session, "delete"),
          confirm: person.session.email,
        }),
      );
      expect(response.status).toBe(200);
      expect(await db().tenant.count({ where: { id: person.tenantId } })).toBe(0);
      await expectEvent(kind, person.client, person.subject, "access.ended", {
        reason: "account_deleted",
      });
    },
  );

  it.each(KINDS)("reason partner_revoked: POST /oauth/revoke (%s)", async (kind) => {
    const person = await grantee(kind);
    const response = await handleRevokeRequest(
      formRequest(
        "/oauth/revoke",
        { token: person.key },
        { Authorization: basicAuthorization(person.client.clientId, person.client.clientSecret) },
      ),
    );
    expect(response.status).toBe(200);
    await expectEvent(kind, person.client, person.subject, "access.ended", {
      reason: "partner_revoked",
    });
  });

  it("is not recorded while the client still holds another live key for the person", async () => {
    const client = await clientOf("subscribed");
    const user = await createTestUser();
    const keys: string[] = [];
    for (let i = 0; i < 2; i++) {
      const verifier = newVerifier();
      const { code } = await issueCodeForUser(client, verifier, user.id);
      const response = await handleTokenRequest(tokenRequest(client, code, verifier));
      keys.push(((await response.json()) as { access_token: string }).access_token);
    }
    const subject = tenantSubject(client.partnerId, user);
    const revoke = (token: string) =>
      handleRevokeRequest(
        formRequest(
          "/oauth/revoke",
          { token },
          { Authorization: basicAuthorization(client.clientId, client.clientSecret) },
        ),
      );
    await revoke(keys[0] ?? "");
    expect(await eventsFor(subject, "access.ended")).toEqual([]);
    await revoke(keys[1] ?? "");
    await expectEvent("subscribed", client, subject, "access.ended", {
      reason: "partner_revoked",
    });
  });

  it.each(KINDS)(
    "reason code_replay: a code used twice revokes the key it gave (%s)",
    async (kind) => {
      const client = await clientOf(kind);
      const verifier = newVerifier();
      const { code, user } = await issueCode(client, verifier);
      expect((await handleTokenRequest(tokenRequest(client, code, verifier))).status).toBe(200);
      expect((await handleTokenRequest(tokenRequest(client, code, verifier))).status).toBe(400);
      // A third use finds the key revoked already: still one event.
      expect((await handleTokenRequest(tokenRequest(client, code, verifier))).status).toBe(400);
      await expectEvent(kind, client, tenantSubject(client.partnerId, user), "access.ended", {
        reason: "code_replay",
      });
    },
  );
});

describe("connection.history_ready", () => {
  it.each(KINDS)(
    "is recorded once, by the sync that stores the connection's last pending history (%s)",
    async (kind) => {
      const person = await connected(kind, undefined, 10 * DAY_MS);
      expect(person.accounts.length).toBeGreaterThan(1);
      const accountIds = person.accounts.map((account) => account.id);
      // Connecting stored every first history: its event is there already.
      await expectEvent(kind, person.client, person.subject, "connection.history_ready", {
        connection_id: person.connectionId,
        account_ids: accountIds,
      });
      const partnerId = person.client.partnerId;
      if (partnerId) {
        await db().webhookEvent.deleteMany({
          where: { type: "connection.history_ready", partnerId },
        });
      }
      // Now as if the first histories had not been stored: the syncs read them.
      await db().account.updateMany({
        where: { connectionId: person.connectionId },
        data: { historyPending: true },
      });
      for (const [index, account] of person.accounts.entries()) {
        expect(await eventsFor(person.subject, "connection.history_ready")).toEqual([]);
        const response = await sync(person.key, account);
        expect(response.status, `account ${index}`).toBe(200);
      }
      await expectEvent(kind, person.client, person.subject, "connection.history_ready", {
        connection_id: person.connectionId,
        account_ids: person.accounts.map((account) => account.id),
      });
      // Later syncs record nothing more.
      await sync(person.key, person.accounts[0] ?? { id: "", uid: "" });
      await expectEvent(kind, person.client, person.subject, "connection.history_ready", {
        connection_id: person.connectionId,
        account_ids: person.accounts.map((account) => account.id),
      });
    },
  );
});

describe("connection.withdrawn", () => {
  it.each(KINDS)("is recorded once when a sync finds the consent withdrawn (%s)", async (kind) => {
    const person = await connected(
      kind,
      { name: "Sandbox Scenario DK: consent withdrawn", country: "DK" },
      ARMED,
    );
    for (const account of person.accounts) {
      const response = await sync(person.key, account);
      expect(await response.json()).toMatchObject({ reason: "consent_withdrawn" });
    }
    const row = await db().connection.findUniqueOrThrow({ where: { id: person.connectionId } });
    expect(row.status).toBe("Withdrawn");
    await expectEvent(kind, person.client, person.subject, "connection.withdrawn", {
      connection_id: person.connectionId,
      account_ids: person.accounts.map((account) => account.id),
    });
  });
});

describe("connection.expired", () => {
  it.each(KINDS)("is recorded once per consent when a sync finds it expired (%s)", async (kind) => {
    const person = await connected(kind);
    const validUntil = new Date(Date.now() - 1000);
    await db().connection.update({ where: { id: person.connectionId }, data: { validUntil } });
    for (const account of person.accounts) {
      const response = await sync(person.key, account);
      expect(await response.json()).toMatchObject({ reason: "reconnect_needed" });
    }
    // The daily run for consents past their end finds it recorded already.
    expect(await recordConnectionExpired(person.connectionId)).toBe(false);
    expect(
      (await db().connection.findUniqueOrThrow({ where: { id: person.connectionId } })).status,
    ).toBe("Expired");
    await expectEvent(kind, person.client, person.subject, "connection.expired", {
      connection_id: person.connectionId,
      account_ids: person.accounts.map((account) => account.id),
      valid_until: validUntil.toISOString(),
    });
  });

  it("is recorded by the daily run for a consent past its end, once", async () => {
    const person = await connected("subscribed");
    const validUntil = new Date(Date.now() - DAY_MS);
    await db().connection.update({ where: { id: person.connectionId }, data: { validUntil } });
    const runs = await Promise.all(
      [1, 2, 3].map(() => recordConnectionExpired(person.connectionId)),
    );
    expect(runs.filter(Boolean)).toHaveLength(1);
    await expectEvent("subscribed", person.client, person.subject, "connection.expired", {
      connection_id: person.connectionId,
      account_ids: person.accounts.map((account) => account.id),
      valid_until: validUntil.toISOString(),
    });
  });
});

describe("connection.expiring", () => {
  it.each(KINDS)(
    "is recorded once, within the given days of the consent's end (%s)",
    async (kind) => {
      const person = await connected(kind);
      // 90 days left: not within 14.
      expect(await recordConnectionExpiring(person.connectionId, 14)).toBe(false);
      const validUntil = new Date(Date.now() + 10 * DAY_MS);
      await db().connection.update({ where: { id: person.connectionId }, data: { validUntil } });
      const runs = await Promise.all(
        [1, 2].map(() => recordConnectionExpiring(person.connectionId, 14)),
      );
      expect(runs.filter(Boolean)).toHaveLength(1);
      expect(await recordConnectionExpiring(person.connectionId, 14)).toBe(false);
      await expectEvent(kind, person.client, person.subject, "connection.expiring", {
        connection_id: person.connectionId,
        account_ids: person.accounts.map((account) => account.id),
        valid_until: validUntil.toISOString(),
      });
    },
  );
});

describe("connection.* go to the clients that read the tenant", () => {
  it("none once the partner's access ended; again once a code is issued for the person", async () => {
    const person = await connected("subscribed");
    await db().apiKey.updateMany({
      where: { tenantId: person.tenantId },
      data: { revokedAt: new Date() },
    });
    await db().connection.update({
      where: { id: person.connectionId },
      data: { validUntil: new Date(Date.now() - 1000) },
    });
    expect(await recordConnectionExpired(person.connectionId)).toBe(true);
    expect(await eventsFor(person.subject, "connection.expired")).toEqual([]);

    // A code issued for the person and not yet exchanged: its key will read the connection.
    await issueCodeForUser(person.client, newVerifier(), person.user.id);
    const validUntil = new Date(Date.now() + 5 * DAY_MS);
    await db().connection.update({ where: { id: person.connectionId }, data: { validUntil } });
    expect(await recordConnectionExpiring(person.connectionId, 14)).toBe(true);
    await expectEvent("subscribed", person.client, person.subject, "connection.expiring", {
      connection_id: person.connectionId,
      account_ids: person.accounts.map((account) => account.id),
      valid_until: validUntil.toISOString(),
    });
  });
});

/** A signed-in browser in a partner flow whose user holds a key (the flow's bank steps). */
async function flowBrowser(client: TestClient, user?: { id: string; email: string }) {
  const keys = generateKeyPair();
  const person = await db().user.update({
    where: { id: user?.id ?? (await createTestUser()).id },
    data: { publicKey: keys.publicKeyRawB64 },
  });
  return browserFor(client, person, keys);
}

async function browserFor(
  client: TestClient,
  user: { id: string; email: string; publicKey: string | null },
  keys: ReturnType<typeof generateKeyPair>,
  renewConnectionId: string | null = null,
) {
  const { flowId, setCookie } = await startTestFlow(client, { state: "s", renewConnectionId });
  const subject = tenantSubject(client.partnerId, user);
  await attachUser(
    { id: flowId, renewConnectionId },
    { id: user.id, publicKey: user.publicKey },
    "user",
    subject,
  );
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  const cookie = `${setCookie.split(";")[0]}; ${await signedInCookie(user.id)}`;
  return { flow, cookie, subject, user, keys };
}

type Browser = Awaited<ReturnType<typeof browserFor>>;

/** The person granted the client access before: it holds a live key for the tenant. */
async function liveKey(client: TestClient, browser: Browser) {
  const tenant = await db().$transaction((tx) =>
    ensureTenant(tx, {
      user: browser.user,
      partner: client.partnerId ? { id: client.partnerId, recipientPublicKey: null } : null,
    }),
  );
  expect(tenant.subject).toBe(browser.subject);
  await db().apiKey.create({
    data: {
      keyHash: randomBytes(32).toString("hex"),
      prefix: "ebk_testtest",
      tenantId: tenant.id,
      clientId: client.clientId,
      scope: "accounts.read",
      expiresAt: new Date(Date.now() + 365 * DAY_MS),
    },
  });
}

/** Picks Sandbox Fjordbank NO; approves at the bank; the callback's ingest runs to its end. */
async function connectInFlow(browser: Browser, bankPage: URL, client: TestClient) {
  const authorization = bankPage.searchParams.get("authorization") ?? "";
  await liveKey(client, browser);
  const back = approveSandboxAuthorization(authorization) ?? "";
  const response = await handleBankCallback(
    new Request(back, { headers: { Cookie: browser.cookie } }),
  );
  expect(response.headers.get("location")).toBe("/banks/progress");
  await settleIngests();
}

async function startAtBank(browser: Browser): Promise<URL> {
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
  return new URL(response.headers.get("location") ?? "");
}

describe("the flow's bank consent", () => {
  it.each(KINDS)(
    "connection.history_ready once the first ingest stored every history; connection.renewed when renew_connection completes (%s)",
    async (kind) => {
      const client = await clientOf(kind);
      const first = await flowBrowser(client);
      await connectInFlow(first, await startAtBank(first), client);
      const connection = await db().connection.findFirstOrThrow({
        where: { tenant: { subject: first.subject } },
        include: { accounts: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
      });
      const accountIds = connection.accounts.map((account) => account.id);
      expect(connection.accounts.every((account) => !account.historyPending)).toBe(true);
      await expectEvent(kind, client, first.subject, "connection.history_ready", {
        connection_id: connection.id,
        account_ids: accountIds,
      });
      expect(await eventsFor(first.subject, "connection.renewed")).toEqual([]);
      // The first consent's expiring event, before the renewal.
      await db().connection.update({
        where: { id: connection.id },
        data: { validUntil: new Date(Date.now() + 5 * DAY_MS) },
      });
      expect(await recordConnectionExpiring(connection.id, 14)).toBe(true);
      expect(await recordConnectionExpiring(connection.id, 14)).toBe(false);

      const renewal = await browserFor(client, first.user, first.keys, connection.id);
      const renew = await handleBankRenew(
        new Request(`${ISSUER}/banks/renew`, { headers: { Cookie: renewal.cookie } }),
      );
      const authorization = new URL(renew.headers.get("location") ?? "").searchParams.get(
        "authorization",
      );
      const back = approveSandboxAuthorization(authorization ?? "") ?? "";
      await handleBankCallback(new Request(back, { headers: { Cookie: renewal.cookie } }));
      await settleIngests();
      const renewed = await db().connection.findUniqueOrThrow({ where: { id: connection.id } });
      expect(renewed.validUntil.getTime()).toBeGreaterThanOrEqual(connection.validUntil.getTime());
      await expectEvent(kind, client, first.subject, "connection.renewed", {
        connection_id: connection.id,
        account_ids: accountIds,
        valid_until: renewed.validUntil.toISOString(),
      });
      // The renewed consent has its own expiring event: the renewal cleared the first one's mark.
      expect(
        await eventsFor(first.subject, "connection.expiring").then((events) => events.length),
      ).toBe(kind === "subscribed" ? 1 : 0);
      await db().connection.update({
        where: { id: connection.id },
        data: { validUntil: new Date(Date.now() + 5 * DAY_MS) },
      });
      expect(await recordConnectionExpiring(connection.id, 14)).toBe(true);
      expect(await eventsFor(first.subject, "connection.expiring")).toHaveLength(
        kind === "subscribed" ? 2 : 0,
      );
      // The renewal kept every account: no history became ready again.
      expect(await eventsFor(first.subject, "connection.history_ready")).toHaveLength(
        kind === "subscribed" ? 1 : 0,
      );
    },
  );
});
