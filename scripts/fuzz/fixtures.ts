import { randomBytes } from "node:crypto";
import { accountCsrfToken } from "../../lib/account/session";
import { findSessionUser } from "../../lib/auth/sessions";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import { csrfToken, type FlowAction } from "../../lib/flow/csrf";
import { startCsrfToken } from "../../lib/demo/demo";
import { revokeClientApiKey } from "../../lib/keys/api-keys";
import { storeLogo } from "../../lib/partners/logos";
import { connectedPartnerUser } from "../../test/bank-data";
import { PNG } from "../../test/images";
import {
  createTestClient,
  createTestUser,
  issueCode,
  mintApiKey,
  newVerifier,
  signedInCookie,
  type TestClient,
  startTestFlow,
} from "../../test/oauth-fixtures";
import { ownerOf } from "../../test/partner-owners";
import type { FuzzContext } from "./types";
import { webhookFixtures } from "./webhook-fixtures";

/**
 * Valid credentials and ids, made with the library in this process (it shares
 * the service's database), so that mutated requests reach deep code paths.
 */

const FLOW_ACTIONS: FlowAction[] = [
  "cancel",
  "login",
  "approve",
  "key-setup",
  "start-over",
  "bank",
];
const CODES = 40;
const FLOWS = 16;

/** A signed-in browser with a flow at the consent step. */
async function browserFlow(client: TestClient) {
  const verifier = newVerifier();
  const { flowId, setCookie } = await startTestFlow(client, {
    verifier: verifier,
    state: "fuzz-state",
  });
  const user = await createTestUser();
  const flow = await db().flow.update({
    where: { id: flowId },
    data: { userId: user.id, step: "consent" },
  });
  const session = await signedInCookie(user.id);
  const csrf = Object.fromEntries(FLOW_ACTIONS.map((action) => [action, csrfToken(flow, action)]));
  return { cookie: `${setCookie.split(";")[0] ?? ""}; ${session}`, csrf };
}

/**
 * A signed-in person with a key and a few passkeys (made-up credentials: none
 * signs in), with the tokens of their passkey actions.
 */
async function passkeyPerson(): Promise<FuzzContext["passkeys"]> {
  const user = await createTestUser();
  const key = generateKeyPair().publicKeyRawB64;
  await db().user.update({
    where: { id: user.id },
    data: { publicKey: key, publicKeyAt: new Date(), keyBackupAt: new Date() },
  });
  const ids: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    const passkey = await db().passkey.create({
      data: {
        userId: user.id,
        credentialId: randomBytes(32).toString("base64url"),
        publicKey: randomBytes(77).toString("base64url"),
        deviceType: i % 2 === 0 ? "multiDevice" : "singleDevice",
        backedUp: i % 2 === 0,
        name: `Fuzz passkey ${i}`,
      },
      select: { id: true },
    });
    ids.push(passkey.id);
  }
  const cookie = await signedInCookie(user.id);
  const session = await findSessionUser(cookie.slice(cookie.indexOf("=") + 1));
  if (!session) throw new Error("the fuzz person's session did not start");
  return {
    cookie,
    addCsrf: accountCsrfToken(session, "add-passkey"),
    removeCsrf: accountCsrfToken(session, "remove-passkey"),
    backupCsrf: accountCsrfToken(session, "backup-saved"),
    key,
    ids,
  };
}

export async function setUpFixtures(origin: string): Promise<FuzzContext> {
  const connected = await connectedPartnerUser();
  const other = await connectedPartnerUser({
    bank: { name: "Sandbox Nordbank DK", country: "DK" },
  });
  const revoked = await mintApiKey(connected.client);
  await revokeClientApiKey(revoked.key, connected.client.clientId);
  const expired = await mintApiKey(connected.client);
  await db().apiKey.updateMany({
    where: { tenant: { user: { id: expired.user.id } } },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });

  const tokenClient = await createTestClient();
  const codes = [];
  for (let i = 0; i < CODES; i += 1) {
    const verifier = newVerifier();
    const { code } = await issueCode(tokenClient, verifier);
    codes.push({ code, verifier });
  }
  const revokeClient = await createTestClient();
  const revokeKeys = [];
  for (let i = 0; i < 10; i += 1) revokeKeys.push((await mintApiKey(revokeClient)).key);
  const suspended = await createTestClient();
  await db().partner.update({
    where: { id: suspended.partnerId ?? "" },
    data: { status: "suspended" },
  });

  const owner = await ownerOf(1);
  const otherOwner = await ownerOf(1);
  const multi = await ownerOf(2);
  const flows = [];
  for (let i = 0; i < FLOWS; i += 1) {
    flows.push(await browserFlow(i % 2 === 0 ? tokenClient : connected.client));
  }
  const browserId = randomBytes(32).toString("base64url");
  const logo = await storeLogo(PNG);

  return {
    origin,
    data: {
      key: connected.key,
      revokedKey: revoked.key,
      expiredKey: expired.key,
      accountId: connected.stored.accountIds[0] ?? "",
      uid: connected.session.accounts[0]?.uid ?? "",
      otherTenantAccountId: other.stored.accountIds[0] ?? "",
      connectionId: connected.stored.connectionId,
    },
    oauth: {
      clientId: tokenClient.clientId,
      clientSecret: tokenClient.clientSecret,
      redirectUri: tokenClient.redirectUri,
      codes,
      revokeClient: {
        clientId: revokeClient.clientId,
        clientSecret: revokeClient.clientSecret,
        keys: revokeKeys,
      },
      suspendedClientId: suspended.clientId,
    },
    owner: {
      cookie: owner.cookie,
      csrf: owner.csrf,
      partnerId: owner.partnerId,
      clientIds: owner.clients.map((client) => client.clientId),
      otherPartnerId: otherOwner.partnerId,
      otherClientId: otherOwner.clients[0]?.clientId ?? "",
      multiCookie: multi.cookie,
      multiCsrf: multi.csrf,
    },
    webhooks: await webhookFixtures(owner.partnerId, otherOwner.partnerId),
    flows,
    demo: { cookie: `demo_browser=${browserId}`, csrf: startCsrfToken(browserId) },
    passkeys: await passkeyPerson(),
    logoFile: `${logo.hash}.png`,
  };
}
