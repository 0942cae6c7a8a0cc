import { createHash, randomBytes } from "node:crypto";
import { expect, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { createBrowserSession } from "../../lib/auth/sessions";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import { normalizeEmail } from "../../lib/mail/address";
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

/** The newest sign-in mail to `email` (mails without a code, like the grant notice, are skipped). */
export async function lastMail(email: string) {
  connectJourneyDatabase();
  const message = await db().outboxMessage.findFirst({
    where: { to: normalizeEmail(email), code: { not: null } },
    orderBy: [{ sentAt: "desc" }, { id: "desc" }],
  });
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

export const BACKUP_LINK = 'a[download="bank-connect-key-backup.json"]';

/** Downloads the encrypted backup from the setup screen; returns the file's path. */
export async function downloadBackup(page: Page): Promise<string> {
  const link = page.locator(BACKUP_LINK);
  await expect(link).toBeVisible({ timeout: 30_000 });
  const download = page.waitForEvent("download");
  await link.click();
  return await (await download).path();
}

/**
 * Creates the key in this browser: passphrase, the backup downloaded, "I
 * saved the file", Continue. Returns the path of the downloaded backup file.
 */
export async function createKey(page: Page, passphrase = PASSPHRASE): Promise<string> {
  await expect(page).toHaveURL(/\/setup$/);
  recordSecret("passphrase", passphrase);
  await page.locator("#passphrase").fill(passphrase);
  await page.locator("#confirm").fill(passphrase);
  await page.locator('form button.button[type="submit"]').click();
  const backupPath = await downloadBackup(page);
  await confirmBackup(page);
  return backupPath;
}

/** Ticks "I saved the backup file" and continues. */
export async function confirmBackup(page: Page) {
  await page.locator("#saved").check();
  await page.locator('form button.button[type="submit"]').click();
}

/**
 * Approves on the user-key consent screen. Without a passphrase the tab
 * must hold the key unlocked already (no passphrase is asked); with one,
 * it must be asked for.
 */
export async function approveWithKey(page: Page, passphrase?: string) {
  await expect(page).toHaveURL(/\/consent$/);
  const approve = page.locator('form.key-unlock button.button[type="submit"]');
  await expect(approve).toBeVisible({ timeout: 30_000 });
  if (passphrase) await page.locator("#passphrase").fill(passphrase);
  else await expect(page.locator("#passphrase")).toHaveCount(0);
  await approve.click();
}

/** Approves on the partner-key consent screen (the partner's key, none of the person's). */
export async function approveForPartnerKey(page: Page) {
  await expect(page).toHaveURL(/\/consent$/);
  await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
}

/** Signs `context` in as the user with a fresh browser session; returns the session cookie's value. */
export async function addSessionCookie(context: BrowserContext, userId: string): Promise<string> {
  connectJourneyDatabase();
  const pair = (await createBrowserSession(userId)).split(";")[0] ?? "";
  const at = pair.indexOf("=");
  const value = pair.slice(at + 1);
  await context.addCookies([{ name: pair.slice(0, at), value, url: E2E_ORIGIN }]);
  return value;
}

/** A new browser context (another device) already signed in as `email`. */
export async function signedInContext(browser: Browser, email: string): Promise<BrowserContext> {
  connectJourneyDatabase();
  const user = await db().user.findUniqueOrThrow({ where: { email } });
  const context = await browser.newContext();
  await addSessionCookie(context, user.id);
  return context;
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
