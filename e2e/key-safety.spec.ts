import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { FRESH_SIGN_IN_SECONDS } from "../lib/auth/sessions";
import { generateKeyPair, openJson } from "../lib/crypto/envelope";
import { db } from "../lib/db/client";
import { createKeyBackup, serializeKeyBackup, type KeyBackup } from "../lib/keys/key-backup";
import { connectJourneyDatabase } from "./support/database";
import {
  addSessionCookie,
  approveWithKey,
  authorizePath,
  BACKUP_LINK,
  confirmBackup,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  downloadBackup,
  exchangeCode,
  newPkce,
  PASSPHRASE,
  signedInContext,
  signInByCode,
  signInByLink,
  uniqueEmail,
  type JourneyClient,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { partnerAppForSpec } from "./support/partner-app";
import { expectAxeClean } from "./support/screen-check";
import { recordBankData, recordSecret } from "./support/secrets-seen";

/**
 * Key safety in user-key mode (docs/key-model.md): setup survives reloads and
 * Back, is not left without a saved backup, the backup is encrypted, a lost
 * key can be replaced by starting over, and the tab that unlocked the key
 * does not ask for the passphrase again.
 */

test.describe.configure({ timeout: 180_000 });

const partnerApp = partnerAppForSpec();

const alert = (page: Page) => page.locator("main [role=alert]");

const readBackup = (path: string) => readFileSync(path, "utf8");

async function registeredKey(email: string): Promise<string | null> {
  connectJourneyDatabase();
  return (await db().user.findUniqueOrThrow({ where: { email } })).publicKey;
}

/** What this browser's IndexedDB holds for the user: the key in use and a setup in progress. */
function browserKeys(page: Page, userId: string) {
  return page.evaluate(async (id) => {
    const database = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open("bank-connect");
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const read = (store: string) =>
      new Promise<unknown>((resolve) => {
        if (!database.objectStoreNames.contains(store)) return resolve(null);
        const request = database.transaction(store).objectStore(store).get(id);
        request.onsuccess = () => resolve(request.result ?? null);
        request.onerror = () => resolve(null);
      });
    const found = { installed: await read("keys"), pending: await read("setup") };
    database.close();
    return found as { installed: { publicKey: string } | null; pending: unknown };
  }, userId);
}

async function startFlow(page: Page, client: JourneyClient, state = "st-key") {
  const pkce = newPkce();
  await page.goto(authorizePath(client, pkce.challenge, { state }));
  return pkce;
}

/** Every account of the tenant opens with `privateKey`; with `lost`, none opens. */
async function expectDataOpensOnlyWith(subject: string, privateKey: string, lost?: string) {
  connectJourneyDatabase();
  const accounts = await db().account.findMany({ where: { tenant: { subject } } });
  expect(accounts.length).toBeGreaterThan(0);
  for (const account of accounts) {
    const details = openJson<{ iban: string }>(privateKey, account.enc ?? "");
    recordBankData(details);
    expect(details.iban).toMatch(/^[A-Z]{2}\d{2}/);
    if (lost) expect(() => openJson(lost, account.enc ?? "")).toThrow();
  }
}

test("setup resumes after a reload or Back at every step and is not left without a saved backup", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  const { verifier } = await startFlow(page, client);
  await signInByLink(page, email);
  await expect(page).toHaveURL(/\/setup$/);

  // Choosing the passphrase is this screen's task; a mistake moves focus to what went wrong.
  await expect(page.locator("#passphrase")).toBeFocused();
  await page.reload();
  await expect(page.locator("#passphrase")).toBeFocused();
  await page.locator("#passphrase").fill("short");
  await page.locator("#confirm").fill("short");
  await page.locator('form button.button[type="submit"]').click();
  await expect(alert(page)).toBeFocused();
  await expectAxeClean(page, { seriousOnly: true });

  recordSecret("passphrase", PASSPHRASE);
  await page.locator("#passphrase").fill(PASSPHRASE);
  await page.locator("#confirm").fill(PASSPHRASE);
  await page.locator('form button.button[type="submit"]').click();
  await expect(page.locator(BACKUP_LINK)).toBeVisible({ timeout: 30_000 });
  // Nothing leads on before the file is downloaded, and nothing is registered yet.
  await expect(page.locator("#saved")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Continue" })).toHaveCount(0);
  expect(await registeredKey(email)).toBeNull();

  // A reload right after "Create my key" keeps the key and its backup on offer.
  await page.reload();
  const backup = JSON.parse(readBackup(await downloadBackup(page))) as KeyBackup;
  await expect(page.locator("#saved")).toBeVisible();
  await expectAxeClean(page, { seriousOnly: true });

  // Back and Forward: still the backup step, the download remembered.
  await page.goBack();
  await page.goForward();
  await expect(page).toHaveURL(/\/setup$/);
  await expect(page.locator("#saved")).toBeVisible({ timeout: 30_000 });
  const again = JSON.parse(readBackup(await downloadBackup(page))) as KeyBackup;
  expect(again).toEqual(backup);

  // Continue without confirming is refused, with focus on the message.
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(alert(page)).toBeFocused();
  await expect(page).toHaveURL(/\/setup$/);

  // Confirmed, but the registration never arrives: the next visit registers it.
  await page.route("**/setup/key", (route) => route.abort());
  await confirmBackup(page);
  // The message of the refused Continue is still shown: wait for the failed registration's own.
  await expect(alert(page)).toHaveText("Something went wrong. Try again.");
  expect(await registeredKey(email)).toBeNull();
  await page.unroute("**/setup/key");
  await page.reload();
  await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
  expect(await registeredKey(email)).toBe(backup.publicKey);

  // Back from the bank step: the key is ready, nothing to import, Continue goes on.
  await page.goBack();
  await expect(page).toHaveURL(/\/setup$/);
  await expect(
    page.getByRole("heading", { name: "Your key is ready in this browser" }),
  ).toBeVisible({ timeout: 30_000 });
  await expect(page.locator("#backup")).toHaveCount(0);
  await expectAxeClean(page, { seriousOnly: true });
  await page.getByRole("link", { name: "Continue" }).click();

  const relay = partnerApp().nextRelay();
  await connectSandboxBank(page);
  await approveWithKey(page);
  const values = Object.fromEntries(await relay);
  expect(values.publicKey).toBe(backup.publicKey);
  const token = await exchangeCode(client, values.code ?? "", verifier);
  await expectDataOpensOnlyWith(token.user, values.privateKey ?? "");
});

test("a passphrase easy to guess is refused, saying why; the meter follows typing; the estimator loads apart", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  // The estimator's code (with its dictionaries) is a script of its own, not one the page starts with.
  const estimatorScripts: string[] = [];
  page.on("response", async (response) => {
    if (!response.url().endsWith(".js")) return;
    const body = await response.text().catch(() => "");
    if (body.includes("extendedRepeat")) estimatorScripts.push(new URL(response.url()).pathname);
  });
  await startFlow(page, client);
  await signInByLink(page, email);
  await expect(page).toHaveURL(/\/setup$/);
  // The scripts the screen's HTML starts with (later ones are added by import()).
  const html = await (await page.request.get("/setup")).text();
  const pageScripts = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+\.js)"/g)].map(
    ([, src]) => new URL(src ?? "", page.url()).pathname,
  );
  expect(pageScripts.length).toBeGreaterThan(0);

  const field = page.locator("#passphrase");
  const meter = page.locator(".strength");
  await expect(meter).toBeHidden();
  await field.fill("passwor");
  await expect(meter).toContainText("Strength: too short");
  for (const [guessable, reason] of [
    ["password12", "This is one of the most used passwords."],
    ["1234567890", "This is one of the most used passwords."],
    [email, "It contains your email address"],
  ] as const) {
    await field.fill(guessable);
    await expect(meter).toContainText(/Strength: (very weak|weak|not strong enough)/);
    await expect(meter).toContainText(reason);
    await expect(page.locator(".strength-weak")).toBeVisible();
    await page.locator("#confirm").fill(guessable);
    await page.locator('form button.button[type="submit"]').click();
    await expect(alert(page)).toBeFocused();
    await expect(alert(page)).toContainText("This passphrase is too easy to guess.");
    await expect(alert(page)).toContainText("Use four or more words");
    await expect(field).toHaveAttribute("aria-invalid", "true");
    await expect(page.locator(BACKUP_LINK)).toHaveCount(0);
  }
  await expect(field).toHaveAccessibleDescription(/Strength: .*email address/);
  await expectAxeClean(page, { seriousOnly: true });

  recordSecret("passphrase", PASSPHRASE);
  await field.fill(PASSPHRASE);
  await expect(field).not.toHaveAttribute("aria-invalid", /.*/);
  await expect(meter).toContainText("Strength: very strong");
  await expect(page.locator(".strength-strong")).toBeVisible();
  await page.locator("#confirm").fill(PASSPHRASE);
  await page.locator('form button.button[type="submit"]').click();
  await expect(page.locator(BACKUP_LINK)).toBeVisible({ timeout: 30_000 });
  expect(estimatorScripts.length).toBeGreaterThan(0);
  for (const script of estimatorScripts) expect(pageScripts).not.toContain(script);
});

test("in German the meter and the refusal speak German, not the estimator's English", async ({
  browser,
}) => {
  const context = await browser.newContext({ locale: "de-DE" });
  const page = await context.newPage();
  const client = await createJourneyClient(partnerApp().redirectUri);
  await startFlow(page, client);
  await signInByLink(page, uniqueEmail());
  await page.locator("#passphrase").fill("qwertzuiop");
  const meter = page.locator(".strength");
  await expect(meter).toContainText("Stärke:");
  await page.locator("#confirm").fill("qwertzuiop");
  await page.locator('form button.button[type="submit"]').click();
  await expect(alert(page)).toContainText("Diese Passphrase ist zu leicht zu erraten.");
  await expect(page.locator("main")).not.toContainText(/guess|keyboard|Add another word/i);
  await context.close();
});

test("a link-style action's label is centred: under its button on a phone, level with it on a desktop", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await startFlow(page, client);
  await signInByLink(page, uniqueEmail());
  await createKey(page);
  await expect(page).toHaveURL(/\/banks/);
  await page.goto("/setup");
  await page.locator(".key-setup-aside button.button-link").click();
  const cancel = page.locator(".key-setup-actions > .button-link");
  await expect(cancel).toBeVisible();
  // Where the label's text is drawn, against the primary button's box.
  const geometry = () =>
    page.evaluate(() => {
      const link = document.querySelector(".key-setup-actions > .button-link");
      const primary = document.querySelector(".key-setup-actions > .button");
      if (!link?.firstChild || !primary) throw new Error("no actions");
      const range = document.createRange();
      range.selectNodeContents(link);
      const text = range.getBoundingClientRect();
      const box = primary.getBoundingClientRect();
      return {
        textX: text.left + text.width / 2,
        textY: text.top + text.height / 2,
        boxX: box.left + box.width / 2,
        boxY: box.top + box.height / 2,
        below: text.top >= box.bottom,
      };
    });
  await page.setViewportSize({ width: 390, height: 844 });
  const phone = await geometry();
  expect(phone.below).toBe(true);
  expect(Math.abs(phone.textX - phone.boxX)).toBeLessThan(2);
  await page.setViewportSize({ width: 1280, height: 900 });
  const desktop = await geometry();
  expect(desktop.below).toBe(false);
  expect(Math.abs(desktop.textY - desktop.boxY)).toBeLessThan(2);
});

test("the backup is encrypted: a wrong passphrase or another key's backup is refused, the right one restores the key in a new browser", async ({
  page,
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  await startFlow(page, client);
  await signInByLink(page, email);
  const backupPath = await createKey(page);
  await connectSandboxBank(page);
  await expect(page).toHaveURL(/\/consent$/);

  const text = readBackup(backupPath);
  const file = JSON.parse(text) as KeyBackup;
  expect(text).not.toMatch(/MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/);
  expect(text).not.toMatch(/"privateKey"/);
  expect(file).toMatchObject({
    format: "bank-connect-key-backup",
    version: 1,
    service: "Bank Connect",
    account: email,
    publicKey: await registeredKey(email),
    encryption: { kdf: "PBKDF2-SHA256", cipher: "AES-256-GCM", iterations: 600_000 },
  });
  expect(file.readme).toMatch(/passphrase/);

  const context = await signedInContext(browser, email);
  const device = await context.newPage();
  const { verifier } = await startFlow(device, client, "st-restore");
  await expect(device).toHaveURL(/\/consent$/);
  await device.locator('a[href="/setup"]').click();
  await expect(device.locator("#backup")).toBeFocused({ timeout: 30_000 });

  // A valid backup of another key is refused before any passphrase is asked.
  const other = generateKeyPair();
  const foreign = await createKeyBackup({
    pair: { privateKey: other.privateKeyPkcs8B64, publicKey: other.publicKeyRawB64 },
    passphrase: PASSPHRASE,
    account: email,
    apiBaseUrl: E2E_ORIGIN,
    readme: "r",
    iterations: 1000,
  });
  await device.locator("#backup").setInputFiles({
    name: "other-key.json",
    mimeType: "application/json",
    buffer: Buffer.from(serializeKeyBackup(foreign)),
  });
  await expect(alert(device)).toContainText("different key");
  await expect(device.locator("#passphrase")).toHaveCount(0);

  // The right file, a wrong passphrase: refused, nothing kept in this browser.
  await device.locator("#backup").setInputFiles(backupPath);
  await expect(device.locator("#passphrase")).toBeFocused();
  await device.locator("#passphrase").fill("not the passphrase at all");
  await device.locator('form button.button[type="submit"]').click();
  await expect(alert(device)).toBeFocused({ timeout: 30_000 });
  await expect(alert(device)).toContainText("does not open");
  await expectAxeClean(device, { seriousOnly: true });
  connectJourneyDatabase();
  const user = await db().user.findUniqueOrThrow({ where: { email } });
  expect(await browserKeys(device, user.id)).toEqual({ installed: null, pending: null });

  const relay = partnerApp().nextRelay();
  await device.locator("#passphrase").fill(PASSPHRASE);
  await device.locator('form button.button[type="submit"]').click();
  await expect(device).toHaveURL(/\/consent$/, { timeout: 30_000 });
  expect((await browserKeys(device, user.id)).installed?.publicKey).toBe(file.publicKey);
  await approveWithKey(device);
  const values = Object.fromEntries(await relay);
  expect(values.publicKey).toBe(file.publicKey);
  const token = await exchangeCode(client, values.code ?? "", verifier);
  await expectDataOpensOnlyWith(token.user, values.privateKey ?? "");
  await context.close();
});

test("consent asks for no passphrase in the tab that set the key up, and asks in a new tab", async ({
  page,
  context,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const { verifier } = await startFlow(page, client);
  await signInByLink(page, uniqueEmail());
  await createKey(page);
  await connectSandboxBank(page);
  await expect(page).toHaveURL(/\/consent$/);
  await expect(page.locator("form.key-unlock")).toContainText("already unlocked in this tab");
  await expectAxeClean(page, { seriousOnly: true });

  const tab = await context.newPage();
  await tab.goto("/consent");
  await expect(tab.locator("#passphrase")).toBeVisible({ timeout: 30_000 });
  // A wrong passphrase there: focus on the message, and a way out for a forgotten one.
  await tab.locator("#passphrase").fill("not the passphrase at all");
  await tab.locator('form.key-unlock button.button[type="submit"]').click();
  await expect(alert(tab)).toBeFocused({ timeout: 30_000 });
  await expect(tab.locator('a[href="/setup?start-over=1"]')).toBeVisible();
  await expectAxeClean(tab, { seriousOnly: true });
  await tab.close();

  const relay = partnerApp().nextRelay();
  await approveWithKey(page);
  const values = Object.fromEntries(await relay);
  await page.waitForURL(partnerApp().redirectUri);
  const token = await exchangeCode(client, values.code ?? "", verifier);
  await expectDataOpensOnlyWith(token.user, values.privateKey ?? "");

  // The relay made the tab forget the key: the next approval asks again.
  await startFlow(page, client, "st-later");
  await expect(page).toHaveURL(/\/consent$/);
  await expect(page.locator("#passphrase")).toBeVisible({ timeout: 30_000 });
});

test("a lost key: starting over deletes the old data and revokes its key; new data opens with the new key, not the old", async ({
  page,
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  const firstPkce = await startFlow(page, client);
  await signInByLink(page, email);
  await createKey(page);
  await connectSandboxBank(page);
  const firstRelay = partnerApp().nextRelay();
  await approveWithKey(page);
  const first = Object.fromEntries(await firstRelay);
  await page.waitForURL(partnerApp().redirectUri);
  const firstToken = await exchangeCode(client, first.code ?? "", firstPkce.verifier);
  await expectDataOpensOnlyWith(firstToken.user, first.privateKey ?? "");
  connectJourneyDatabase();
  const oldConnections = await db().connection.findMany({
    where: { tenant: { subject: firstToken.user } },
  });
  expect(oldConnections.length).toBeGreaterThan(0);

  // Another browser, no backup file: the way out is starting over.
  const context = await signedInContext(browser, email);
  const device = await context.newPage();
  const { verifier } = await startFlow(device, client, "st-start-over");
  await device.locator('a[href="/setup"]').click();
  await device.getByRole("button", { name: "Start over with a new key" }).click();
  await expect(device.locator("#word")).toBeFocused();
  await device.locator("#word").fill("start");
  await device.locator("#passphrase").fill("a brand new passphrase");
  await device.locator("#confirm").fill("a brand new passphrase");
  await device.getByRole("button", { name: "Make a new key" }).click();
  await expect(alert(device)).toBeFocused();
  await expectAxeClean(device, { seriousOnly: true });
  await device.locator("#word").fill("Start Over");
  recordSecret("passphrase", "a brand new passphrase");
  await device.getByRole("button", { name: "Make a new key" }).click();
  await expect(device.locator(".notice")).toContainText("old key is replaced", {
    timeout: 30_000,
  });
  // A reload keeps starting over where it was; nothing is deleted before the backup is saved.
  await device.reload();
  const backup = JSON.parse(readBackup(await downloadBackup(device))) as KeyBackup;
  await expect(device.locator(".notice")).toContainText("old key is replaced");
  expect(await registeredKey(email)).toBe(first.publicKey);
  expect(await db().connection.count({ where: { tenant: { subject: firstToken.user } } })).toBe(
    oldConnections.length,
  );
  await confirmBackup(device);
  await expect(device).toHaveURL(/\/banks/, { timeout: 30_000 });

  expect(await registeredKey(email)).toBe(backup.publicKey);
  expect(backup.publicKey).not.toBe(first.publicKey);
  expect(
    await db().connection.count({ where: { id: { in: oldConnections.map(({ id }) => id) } } }),
  ).toBe(0);
  expect(await db().account.count({ where: { tenant: { subject: firstToken.user } } })).toBe(0);
  const revoked = await fetch(`${E2E_ORIGIN}/api/accounts`, {
    headers: { Authorization: `Bearer ${firstToken.access_token}` },
  });
  expect(revoked.status).toBe(401);

  // Banks are connected again, sealed to the new key, and relayed with it.
  const relay = partnerApp().nextRelay();
  await connectSandboxBank(device);
  await approveWithKey(device);
  const values = Object.fromEntries(await relay);
  expect(values.publicKey).toBe(backup.publicKey);
  const token = await exchangeCode(client, values.code ?? "", verifier);
  expect(token.user).toBe(firstToken.user);
  await expectDataOpensOnlyWith(token.user, values.privateKey ?? "", first.privateKey ?? "");

  // The first browser still holds the old key: it no longer counts.
  await startFlow(page, client, "st-old-browser");
  await expect(page).toHaveURL(/\/consent$/);
  await expect(page.locator('.key-unlock a[href="/setup"]')).toBeVisible({ timeout: 30_000 });
  await context.close();
});

test("a browser holding a replaced key says so and what to do, in German", async ({ browser }) => {
  const context = await browser.newContext({ locale: "de-DE" });
  const page = await context.newPage();
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  await startFlow(page, client);
  await signInByLink(page, email);
  await createKey(page);
  await connectSandboxBank(page);
  const relay = partnerApp().nextRelay();
  await approveWithKey(page);
  await relay;
  await page.waitForURL(partnerApp().redirectUri);

  // The person started over in another browser: the account's key is a new one.
  connectJourneyDatabase();
  await db().user.update({
    where: { email },
    data: { publicKey: generateKeyPair().publicKeyRawB64, publicKeyAt: new Date() },
  });
  await startFlow(page, client, "st-replaced");
  await expect(page).toHaveURL(/\/consent$/);
  const notice = page.locator(".key-unlock");
  await expect(notice).toContainText("Dieser Browser hat einen älteren Schlüssel", {
    timeout: 30_000,
  });
  await expect(notice).toContainText("Sicherungsdatei Ihres neuen Schlüssels");
  await expect(notice).not.toContainText("noch nicht vorhanden");
  await notice.locator('a[href="/setup"]').click();
  await expect(page.locator("main h2")).toHaveText("Dieser Browser hat einen älteren Schlüssel");
  await expect(page.locator("main")).toContainText("Sicherungsdatei Ihres neuen Schlüssels");
  await expect(page.locator("#backup")).toBeVisible();
  await expect(
    page.locator(".key-setup-aside").filter({ has: page.locator("button.button-link") }),
  ).toContainText("Sie haben die Sicherungsdatei nicht mehr oder die Passphrase vergessen?");
  await expectAxeClean(page, { seriousOnly: true });
  await context.close();
});

test("the developer export is not in the flow: My access offers it to a fresh sign-in, behind a warning and a second click", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  // Signed in without a mail (an address gets one a minute): signing in again below sends one.
  connectJourneyDatabase();
  const user = await db().user.create({ data: { email } });
  await addSessionCookie(page.context(), user.id);
  await startFlow(page, client);
  await expect(page).toHaveURL(/\/setup$/);
  await page.locator("#passphrase").fill(PASSPHRASE);
  await page.locator("#confirm").fill(PASSPHRASE);
  await page.locator('form button.button[type="submit"]').click();
  await expect(page.locator(BACKUP_LINK)).toBeVisible({ timeout: 30_000 });
  // Every person's backup screen: no plain export on offer.
  await expect(page.getByText("For developers")).toHaveCount(0);
  await expect(page.getByText("unencrypted")).toHaveCount(0);
  const backup = JSON.parse(readBackup(await downloadBackup(page))) as KeyBackup;
  await confirmBackup(page);
  await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });

  // A sign-in older than FRESH_SIGN_IN_SECONDS is sent to sign in again, and comes back.
  await db().browserSession.updateMany({
    where: { user: { email } },
    data: { createdAt: new Date(Date.now() - (FRESH_SIGN_IN_SECONDS + 60) * 1000) },
  });
  await page.goto("/account");
  const exportButton = page.getByRole("button", { name: "Download the unencrypted key" });
  await page.getByText("For developers: export the key unencrypted").click();
  await expect(page.locator(".account-developer-warning")).toContainText("plain form");
  await expect(exportButton).toHaveCount(0);
  await expect(page.locator("#developer-passphrase")).toHaveCount(0);
  await page.getByRole("link", { name: "Sign in again" }).click();
  await expect(page).toHaveURL(/\/login\?.*reconfirm=change/);
  await signInByCode(page, email);
  await expect(page).toHaveURL(/\/account$/);

  await expect(exportButton).toBeHidden();
  await page.getByText("For developers: export the key unencrypted").click();
  await expect(page.locator(".account-developer-warning")).toContainText("plain form");
  await expectAxeClean(page, { seriousOnly: true });
  const passphrase = page.locator("#developer-passphrase");
  if (await passphrase.count()) await passphrase.fill(PASSPHRASE);
  const download = page.waitForEvent("download");
  await exportButton.click();
  const bundle = JSON.parse(readBackup((await (await download).path()) ?? "")) as {
    service: string;
    apiBaseUrl: string;
    encryptionKey: { privateKey: string; publicKey: string };
  };
  recordSecret("private key", bundle.encryptionKey.privateKey);
  expect(bundle.service).toBe("Bank Connect");
  expect(bundle.apiBaseUrl).toBe(E2E_ORIGIN);
  expect(bundle.encryptionKey.privateKey).toMatch(
    /^MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/,
  );
  expect(bundle.encryptionKey.publicKey).toBe(backup.publicKey);
});
