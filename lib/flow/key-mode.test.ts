import { describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import { ensureTenant, tenantSubject } from "../banking/tenants";
import { generateKeyPair, openJson } from "../crypto/envelope";
import { db } from "../db/client";
import { handleAuthorizeRequest } from "./start";
import { toS256Challenge } from "../oauth/pkce";
import { handleTokenRequest } from "../oauth/token";
import { connectBank } from "../../test/bank-data";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  newVerifier,
  signedInCookie,
  tokenRequest,
  type TestClient,
} from "../../test/oauth-fixtures";
import { handleConsentApprove } from "./consent";
import { csrfToken } from "./csrf";
import { keyModeFor } from "./flows";
import { keyProofFor } from "../../test/key-proof";

/**
 * A tenant is sealed to the key it was created with; the flow's key mode,
 * its step order and the relay's key fields follow that key, not whether the
 * partner holds a recipient key today (docs/key-modes.md).
 */

type Keys = ReturnType<typeof generateKeyPair>;

async function userWithKey() {
  const keys = generateKeyPair();
  const user = await db().user.update({
    where: { id: (await createTestUser()).id },
    data: { publicKey: keys.publicKeyRawB64 },
  });
  return { user, keys };
}

function installRecipientKey(client: TestClient, keys: Keys) {
  return db().partner.update({
    where: { id: client.partnerId ?? "" },
    data: { recipientPublicKey: keys.publicKeyRawB64, recipientKeyInstalledAt: new Date() },
  });
}

/** Connects a sandbox bank for the user under the partner, with the partner as it is now. */
async function connectUnderPartner(
  client: TestClient,
  user: { id: string; email: string; publicKey: string | null },
) {
  const partner = await db().partner.findUniqueOrThrow({
    where: { id: client.partnerId ?? "" },
    select: { id: true, recipientPublicKey: true },
  });
  const tenant = await db().$transaction((tx) => ensureTenant(tx, { user, partner }));
  const sealed = await db().tenant.findUniqueOrThrow({ where: { id: tenant.id } });
  await connectBank(tenant.id, sealed.sealingKey ?? "");
  return sealed;
}

/** GET /oauth/authorize from a signed-in browser: where it goes and the browser's cookies. */
async function authorizeSignedIn(client: TestClient, userId: string, verifier: string) {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: "accounts.read",
    state: "s-key-mode",
    code_challenge: toS256Challenge(verifier),
    code_challenge_method: "S256",
    response_mode: "form_post",
  });
  const session = await signedInCookie(userId);
  const response = await handleAuthorizeRequest(
    new Request(`${ISSUER}/oauth/authorize?${params}`, { headers: { Cookie: session } }),
  );
  expect(response.status).toBe(303);
  const flowCookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const flow = await db().flow.findFirstOrThrow({
    where: { clientId: client.clientId, userId },
    orderBy: { createdAt: "desc" },
  });
  return { location: response.headers.get("location"), cookie: `${flowCookie}; ${session}`, flow };
}

function approve(cookie: string, body: { json: unknown } | { form: Record<string, string> }) {
  const isJson = "json" in body;
  return handleConsentApprove(
    new Request(`${ISSUER}/consent/approve`, {
      method: "POST",
      headers: {
        Cookie: cookie,
        Origin: ISSUER,
        "Content-Type": isJson ? "application/json" : "application/x-www-form-urlencoded",
      },
      body: isJson ? JSON.stringify(body.json) : new URLSearchParams(body.form).toString(),
    }),
  );
}

describe("a partner that installs its recipient key after users connected with their own keys", () => {
  it("keeps such a user on the user-key path: the browser approves and relays the user's key, which opens the data", async () => {
    const client = await createTestClient();
    const { user, keys } = await userWithKey();
    const tenant = await connectUnderPartner(client, user);
    expect(tenant.sealingKeyKind).toBe("user");
    await installRecipientKey(client, generateKeyPair());

    const verifier = newVerifier();
    const started = await authorizeSignedIn(client, user.id, verifier);
    expect(started.location).toBe("/consent");

    // The partner-key form does not approve for a user-key tenant: the key is only in the browser.
    const form = await approve(started.cookie, {
      form: { csrf: csrfToken(started.flow, "approve") },
    });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/consent");

    // The consent page's script: the server answers the fields, the browser adds the key.
    const approved = await approve(started.cookie, {
      json: {
        csrf: csrfToken(started.flow, "approve"),
        publicKey: keys.publicKeyRawB64,
        proof: await keyProofFor(started.flow, started.cookie, keys.privateKeyPkcs8B64),
      },
    });
    expect(approved.status).toBe(200);
    expect(approved.headers.get("content-type")).toMatch(/^application\/json/);
    const { redirectUri, fields } = (await approved.json()) as {
      redirectUri: string;
      fields: [string, string][];
    };
    expect(redirectUri).toBe(client.redirectUri);
    expect(fields.map(([name]) => name)).toEqual([
      "code",
      "state",
      "iss",
      "privateKey",
      "publicKey",
    ]);
    const code = fields.find(([name]) => name === "code")?.[1] ?? "";

    const token = await handleTokenRequest(tokenRequest(client, code, verifier));
    const { access_token: key, user: subject } = (await token.json()) as {
      access_token: string;
      user: string;
    };
    expect(subject).toBe(tenantSubject(client.partnerId, user));
    const accounts = (await (
      await accountsRoute.GET(
        new Request(`${ISSUER}/api/accounts`, { headers: { "X-Api-Key": key } }),
        {},
      )
    ).json()) as { enc: string }[];
    expect(accounts.length).toBeGreaterThan(0);
    // The key the browser relays (the user's) opens what the key reads.
    for (const account of accounts)
      expect(openJson(keys.privateKeyPkcs8B64, account.enc)).toHaveProperty("iban");
    expect(await keyModeFor({ recipientPublicKey: "installed" }, tenant.subject)).toBe("user");
  });

  it("sends a user new to the partner down the partner-key path: consent first, then the bank, then a relay with empty key fields", async () => {
    const client = await createTestClient();
    const partnerKeys = generateKeyPair();
    await installRecipientKey(client, partnerKeys);
    const { user } = await userWithKey();
    const subject = tenantSubject(client.partnerId, user);
    expect(await keyModeFor({ recipientPublicKey: partnerKeys.publicKeyRawB64 }, subject)).toBe(
      "partner",
    );

    const started = await authorizeSignedIn(client, user.id, newVerifier());
    expect(started.location).toBe("/consent");
    const csrf = { csrf: csrfToken(started.flow, "approve") };
    const consented = await approve(started.cookie, { form: csrf });
    expect(consented.status).toBe(303);
    expect(consented.headers.get("location")).toBe("/banks");

    const tenant = await connectUnderPartner(client, user);
    expect(tenant.sealingKeyKind).toBe("partner");
    const relay = await approve(started.cookie, { form: csrf });
    expect(relay.status).toBe(200);
    const html = await relay.text();
    expect(html).toContain('<input type="hidden" name="privateKey" value="">');
    expect(html).toContain('<input type="hidden" name="publicKey" value="">');
  });
});
