import { randomBytes } from "node:crypto";
import { createBrowserSession } from "../lib/auth/sessions";
import { db } from "../lib/db/client";
import { approveFlow } from "../lib/flow/approve";
import { createFlow } from "../lib/flow/flows";
import { accessMailsSettled } from "../lib/oauth/access-mail";
import { handleTokenRequest } from "../lib/oauth/token";
import { toS256Challenge } from "../lib/oauth/pkce";
import { createClient } from "../lib/partners/clients";
import { createPartner } from "../lib/partners/partners";

/** Real rows in the run's database, for the protocol tests. */

export const ISSUER = "http://localhost:3000";
export const REDIRECT_URI = "https://app.example.com/callback";

export const uniqueEmail = (label = "user") =>
  `${label}-${randomBytes(6).toString("hex")}@example.com`;

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  partnerId: string | null;
}

export async function createTestClient(
  options: { house?: boolean; legacyId?: string; redirectUris?: string[] } = {},
): Promise<TestClient> {
  const partner = options.house
    ? null
    : await createPartner({ name: "Acme Budget", ownerEmail: uniqueEmail("owner") });
  const redirectUris = options.redirectUris ?? [REDIRECT_URI];
  const { client, clientSecret } = await createClient({
    partnerId: partner?.id ?? null,
    redirectUris,
    ...(options.legacyId ? { id: options.legacyId } : {}),
  });
  return {
    clientId: client.id,
    clientSecret,
    redirectUri: redirectUris[0] ?? "",
    partnerId: partner?.id ?? null,
  };
}

export async function createTestUser(email = uniqueEmail()) {
  return db().user.create({ data: { email } });
}

/** A Cookie header for a signed-in browser of this user. */
export async function signedInCookie(userId: string): Promise<string> {
  const setCookie = await createBrowserSession(userId);
  return setCookie.split(";")[0] ?? "";
}

export const newVerifier = () => randomBytes(32).toString("base64url");

/** A new flow of `client`, as /oauth/authorize creates it (its cookie in `setCookie`). */
export function startTestFlow(
  client: TestClient,
  options: { verifier?: string; state?: string; renewConnectionId?: string | null } = {},
) {
  return createFlow({
    clientId: client.clientId,
    redirectUri: client.redirectUri,
    state: options.state ?? "state-1",
    codeChallenge: toS256Challenge(options.verifier ?? newVerifier()),
    scope: "accounts.read",
    locale: null,
    loginHint: null,
    challenge: null,
    renewConnectionId: options.renewConnectionId ?? null,
  });
}

/** The code a flow of this existing user mints when the user approves. */
export async function issueCodeForUser(client: TestClient, verifier: string, userId: string) {
  const { flowId } = await startTestFlow(client, { verifier });
  await db().flow.update({ where: { id: flowId }, data: { userId, step: "consent" } });
  const approval = await approveFlow(flowId, userId);
  const code = approval.fields.find(([name]) => name === "code")?.[1] ?? "";
  return { code, approval };
}

/** A consented flow's code for a new user, as the consent screen would mint it. */
export async function issueCode(client: TestClient, verifier: string, email = uniqueEmail()) {
  const user = await createTestUser(email);
  const { code, approval } = await issueCodeForUser(client, verifier, user.id);
  return { code, user, approval };
}

export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encoded = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
  return `Basic ${Buffer.from(encoded, "utf8").toString("base64")}`;
}

export function formRequest(
  path: string,
  body: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(body).toString(),
  });
}

/** The SDK's token request, Basic auth and the body in its order (/docs/token). */
export function tokenRequest(
  client: TestClient,
  code: string,
  verifier: string,
  redirectUri?: string,
) {
  const body: Record<string, string> = {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
  };
  if (redirectUri !== undefined) body.redirect_uri = redirectUri;
  return formRequest("/oauth/token", body, {
    Authorization: basicAuthorization(client.clientId, client.clientSecret),
  });
}

/** An API key minted through the real token endpoint, with the user it reads for. */
export async function mintApiKey(client: TestClient) {
  const verifier = newVerifier();
  const { code, user } = await issueCode(client, verifier);
  const response = await handleTokenRequest(tokenRequest(client, code, verifier));
  const body = (await response.json()) as { access_token: string };
  // The exchange's mail to the user runs in the background: done before the test goes on.
  await accessMailsSettled();
  return { key: body.access_token, user };
}
