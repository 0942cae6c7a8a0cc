import { expect } from "vitest";
import { openJson } from "../lib/crypto/envelope";
import { connectBank, partnerTenantOf, partnerWithRecipientKey } from "./bank-data";
import { issueCode, newVerifier, uniqueEmail } from "./oauth-fixtures";

/**
 * A partner's whole use of the service over real HTTP (test/observed-server.ts):
 * a user approves (through the flow's own functions), the partner exchanges
 * the code, a wrong code is refused, the user's bank is connected, and the
 * partner reads accounts and transactions and syncs. Returns every secret and
 * piece of bank data that went by, for the tests that look for leaks.
 */

export interface JourneySecrets {
  apiKey: string;
  clientSecret: string;
  code: string;
  verifier: string;
  email: string;
  ibans: string[];
  amounts: string[];
  uid: string;
}

function collect(value: unknown, name: string, into: Set<string>): void {
  if (Array.isArray(value)) return value.forEach((item) => collect(item, name, into));
  if (typeof value !== "object" || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    if (key === name && typeof child === "string" && child !== "") into.add(child);
    else collect(child, name, into);
  }
}

export async function observedJourney(origin: string): Promise<JourneySecrets> {
  const { client, keys } = await partnerWithRecipientKey();
  const verifier = newVerifier();
  const email = uniqueEmail("observed");
  const { code, user } = await issueCode(client, verifier, email);
  const exchange = (withCode: string) =>
    fetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: withCode,
        code_verifier: verifier,
        redirect_uri: client.redirectUri,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    });
  const issued = await exchange(code);
  expect(issued.status).toBe(200);
  const apiKey = ((await issued.json()) as { access_token: string }).access_token;
  // A code the service never issued: invalid_grant. (Replaying the real one would revoke the key.)
  expect((await exchange("a-code-never-issued")).status).toBe(400);

  const tenant = await partnerTenantOf(client, user);
  await connectBank(tenant.id, keys.publicKeyRawB64);
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}${path}`, {
      ...init,
      headers: { "X-Api-Key": apiKey, "Content-Type": "application/json" },
    });
  const listed = await api("/api/accounts");
  expect(listed.status).toBe(200);
  const accounts = (await listed.json()) as {
    id: string;
    enc: string;
    uidEnc: string;
  }[];
  const account = accounts[0];
  if (!account) throw new Error("the connected bank has no account");
  const ibans = new Set<string>();
  for (const each of accounts) {
    collect(openJson(keys.privateKeyPkcs8B64, each.enc), "iban", ibans);
  }
  const page = await api(`/api/accounts/${account.id}/transactions?limit=20`);
  expect(page.status).toBe(200);
  const amounts = new Set<string>();
  for (const item of ((await page.json()) as { items: { enc: string }[] }).items) {
    collect(openJson(keys.privateKeyPkcs8B64, item.enc), "amount", amounts);
  }
  const { uid } = openJson<{ uid: string }>(keys.privateKeyPkcs8B64, account.uidEnc);
  const synced = await api(`/api/accounts/${account.id}/sync`, {
    method: "POST",
    body: JSON.stringify({ uid }),
  });
  expect(synced.status).toBe(200);
  expect(ibans.size).toBeGreaterThan(0);
  expect(amounts.size).toBeGreaterThan(0);
  return {
    apiKey,
    clientSecret: client.clientSecret,
    code,
    verifier,
    email,
    ibans: [...ibans],
    amounts: [...amounts],
    uid,
  };
}
