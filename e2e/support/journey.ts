import { createHash, randomBytes } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import { findLastMessage } from "../../lib/mail";
import { createClient } from "../../lib/partners/clients";
import { createPartner } from "../../lib/partners/partners";
import { connectJourneyDatabase } from "./database";
import { E2E_ORIGIN } from "./origin";
import { recordSecret } from "./secrets-seen";

/** Steps of the hosted flow, as a person takes them, for the journeys. */

export const PASSPHRASE = "correct horse battery staple";

export interface JourneyClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  partnerId: string;
  /** The partner's recipient key pair, in partner-key mode. */
  recipientKey: { privateKeyPkcs8B64: string; publicKeyRawB64: string } | null;
}

export async function createJourneyClient(
  redirectUri: string,
  options: { recipientKey?: boolean; name?: string } = {},
): Promise<JourneyClient> {
  connectJourneyDatabase();
  const partner = await createPartner({
    name: options.name ?? "Acme Budget",
    ownerEmail: uniqueEmail("owner"),
  });
  const recipientKey = options.recipientKey ? generateKeyPair() : null;
  if (recipientKey) {
    await db().partner.update({
      where: { id: partner.id },
      data: {
        recipientPublicKey: recipientKey.publicKeyRawB64,
        recipientKeyInstalledAt: new Date(),
      },
    });
  }
  const { client, clientSecret } = await createClient({
    partnerId: partner.id,
    redirectUris: [redirectUri],
  });
  recordSecret("client secret", clientSecret);
  recordSecret("private key", recipientKey?.privateKeyPkcs8B64);
  return { clientId: client.id, clientSecret, redirectUri, partnerId: partner.id, recipientKey };
}

export const uniqueEmail = (label = "user") =>
  `${label}-${randomBytes(5).toString("hex")}@example.com`;

export function newPkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizePath(
  client: JourneyClient,
  challenge: string,
  extra: Record<string, string> = {},
) {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: "accounts.read",
    state: extra.state ?? "journey-state",
    code_challenge: challenge,
    code_challenge_method: "S256",
    response_mode: "form_post",
    ...extra,
  });
  return `/oauth/authorize?${params}`;
}

export async function lastMail(email: string) {
  connectJourneyDatabase();
  const message = await findLastMessage(email);
  if (!message) throw new Error(`no mail to ${email}`);
  recordSecret("pin", message.code);
  if (message.link)
    recordSecret("magic-link token", new URL(message.link).searchParams.get("token"));
  return message;
}

export async function requestLoginMail(page: Page, email: string) {
  await expect(page).toHaveURL(/\/login\?/);
  await page.locator("#email").fill(email);
  await page.locator('form[action="/login/request"] button[type="submit"]').click();
  await expect(page).toHaveURL(/sent=1/);
}

export async function signInByLink(page: Page, email: string) {
  await requestLoginMail(page, email);
  const mail = await lastMail(email);
  expect(mail.link).toBeTruthy();
  await page.goto(mail.link ?? "");
  await page.locator('form[action="/login/link/confirm"] button[type="submit"]').click();
}

export async function signInByCode(page: Page, email: string) {
  await requestLoginMail(page, email);
  const mail = await lastMail(email);
  await page.locator("#code").fill(mail.code ?? "");
  await page.locator('form[action="/login/code"] button[type="submit"]').click();
}

/** Creates the key in this browser; returns the path of the downloaded backup file. */
export async function createKey(page: Page): Promise<string> {
  await expect(page).toHaveURL(/\/setup$/);
  recordSecret("passphrase", PASSPHRASE);
  await page.locator("#passphrase").fill(PASSPHRASE);
  await page.locator("#confirm").fill(PASSPHRASE);
  await page.locator('form button.button[type="submit"]').click();
  const link = page.locator('a[download="bank-connect-key-backup.json"]');
  await expect(link).toBeVisible({ timeout: 30_000 });
  const download = page.waitForEvent("download");
  await link.click();
  const backupPath = await (await download).path();
  await page.locator("a.button").click();
  return backupPath;
}

export async function connectSandboxBank(page: Page, bank = /Sandbox/) {
  await expect(page).toHaveURL(/\/banks/);
  const row = page.locator(".bank-list li").filter({ hasText: bank }).first();
  await row.locator('button[type="submit"]').click();
  await expect(page).toHaveURL(/\/sandbox\/authorize/);
  await page.locator('button[value="approve"]').click();
}

export async function exchangeCode(client: JourneyClient, code: string, verifier: string) {
  const response = await fetch(`${E2E_ORIGIN}/oauth/token`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString("base64")}`,
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: client.redirectUri,
    }),
  });
  recordSecret("authorization code", code);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { access_token: string; user: string };
  recordSecret("api key", body.access_token);
  recordSecret("user", body.user);
  return body;
}
