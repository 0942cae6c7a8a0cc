import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { db } from "../lib/db/client";
import { normalizeEmail } from "../lib/mail/address";
import { parsePasskeyWrappedKey } from "../lib/keys/passkey-key";
import { connectJourneyDatabase } from "./support/database";
import {
  addSessionCookie,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  newPkce,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";
import {
  addVirtualAuthenticator,
  forgetService,
  holdPasskeyAutofill,
  onService,
  storedKeyRecord,
} from "./support/passkeys";
import { checkScreenWidths } from "./support/screen-check";

/**
 * The key held by a passkey, after the first time (docs/key-model.md): the
 * Allow tap unlocks it where this browser keeps it; a new device (every trace
 * of the service cleared, the same synced passkey) signs in with one tap and
 * no mail, and gets the key with it; a new device signed in by mail gets the
 * key from the passkey at the key step or at consent. A person with a
 * passphrase key is offered a passkey once after a mail sign-in, and the
 * passkey then holds the key. Screens at 390 and 1280 px in en, de and fi.
 */

test.describe.configure({ timeout: 300_000 });

const partnerApp = partnerAppForSpec();

async function mailsTo(email: string): Promise<number> {
  connectJourneyDatabase();
  return db().outboxMessage.count({ where: { to: normalizeEmail(email), code: { not: null } } });
}

/**
 * The browser signed in as a mail sign-in leaves it (a fresh session), without
 * a second mail to the same address within the minute the mail limit allows.
 */
async function signedInByMail(context: BrowserContext, userId: string) {
  await addSessionCookie(context, userId);
}

async function userOf(email: string) {
  connectJourneyDatabase();
  return db().user.findUniqueOrThrow({ where: { email }, include: { passkeys: true } });
}

/** Starts a flow at a new partner. */
async function startFlow(page: Page, locale: string) {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge, { ui_locales: locale }));
  return { client };
}

/** The relay carries the registered key; the page ends at the partner's. */
async function expectKeyRelayed(page: Page, publicKey: string | null) {
  const values = Object.fromEntries(await partnerApp().nextRelay());
  await page.waitForURL(partnerApp().redirectUri);
  expect(values.publicKey).toBe(publicKey);
  expect(values.privateKey).toMatch(/^MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/);
}

const allowButton = (page: Page) => page.locator('form.key-unlock button.button[type="submit"]');

for (const locale of ["en", "de", "fi"] as const) {
  test(`a passkey holds the key: Allow unlocks it, a new device signs in with a tap and gets it (${locale})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    await addVirtualAuthenticator(page);
    const email = uniqueEmail("passkey-returning");

    // The first time: a passkey made in the key step.
    await startFlow(page, locale);
    await signInByLink(page, email);
    await page.locator(".key-setup .passkey-button").click();
    await connectSandboxBank(page);
    await allowButton(page).click();
    const user = await userOf(email);
    await expectKeyRelayed(page, user.publicKey);

    // Later in this browser, the tab no longer holding the key unlocked: Allow unlocks it.
    await onService(page);
    await page.evaluate(() => sessionStorage.clear());
    await startFlow(page, locale);
    await connectSandboxBank(page);
    await expect(page).toHaveURL(/\/consent$/);
    await expect(page.locator(".key-unlock .passkey-icon")).toBeVisible({ timeout: 30_000 });
    await expect(page.locator("#passphrase")).toHaveCount(0);
    await checkScreenWidths(page, `passkey-${locale}-consent-passkey`);
    await allowButton(page).click();
    await expectKeyRelayed(page, user.publicKey);

    // A new device: one tap on "Sign in with a passkey", no mail, and the key comes along.
    await forgetService(context, page);
    const mails = await mailsTo(email);
    const released = await holdPasskeyAutofill(page);
    await startFlow(page, locale);
    await expect(page).toHaveURL(/\/login\?/);
    await page.locator(".passkey-sign-in button").click();
    await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
    await released();
    expect(await mailsTo(email)).toBe(mails);
    const kept = (await storedKeyRecord(page, user.id)) as { format: string; publicKey: string };
    expect(kept.format).toBe("bank-connect-passkey-key");
    expect(kept.publicKey).toBe(user.publicKey);
    await connectSandboxBank(page);
    // No key step on the new device: sign in, bank, allow.
    await expect(page.locator(".steps li")).toHaveCount(3);
    // Unlocked by the sign-in: allowing asks nothing.
    await expect(page.locator(".key-unlock .passkey-icon")).toHaveCount(0);
    await expect(page.locator("#passphrase")).toHaveCount(0);
    await allowButton(page).click();
    await expectKeyRelayed(page, user.publicKey);

    // A new device signed in by mail: the key step gets the key from the passkey, no file.
    await forgetService(context, page);
    await signedInByMail(context, user.id);
    await startFlow(page, locale);
    await connectSandboxBank(page);
    await expect(page).toHaveURL(/\/consent$/);
    const fetch = page.locator(".key-unlock .passkey-button");
    await expect(fetch).toBeVisible({ timeout: 30_000 });
    await checkScreenWidths(page, `passkey-${locale}-consent-no-key`);
    await page.locator('.key-unlock a[href="/setup"]').click();
    await expect(page.locator("#passkey-import-title")).toBeVisible({ timeout: 30_000 });
    await expect(page.locator("#backup")).toBeVisible();
    await checkScreenWidths(page, `passkey-${locale}-setup-import`);
    await page.locator("#passkey-import-title ~ * .passkey-button").click();
    await expect(page).toHaveURL(/\/consent$/, { timeout: 30_000 });
    await expect(page.locator("#passphrase")).toHaveCount(0);
    await allowButton(page).click();
    await expectKeyRelayed(page, user.publicKey);

    // And at consent itself: the same tap there, the page then allows as usual.
    await forgetService(context, page);
    await signedInByMail(context, user.id);
    await startFlow(page, locale);
    await connectSandboxBank(page);
    await page.locator(".key-unlock .passkey-button").click();
    await expect(page.locator(".key-unlock .passkey-button")).toHaveCount(0, { timeout: 30_000 });
    await expect(page.locator("#passphrase")).toHaveCount(0);
    await allowButton(page).click();
    await expectKeyRelayed(page, user.publicKey);
    await context.close();
  });
}

test("a closed passkey sheet at Allow shares nothing and says so", async ({ page }) => {
  const authenticator = await addVirtualAuthenticator(page);
  const email = uniqueEmail("passkey-allow-closed");
  const { client } = await startFlow(page, "en");
  await signInByLink(page, email);
  await page.locator(".key-setup .passkey-button").click();
  await connectSandboxBank(page);
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await expect(page.locator(".key-unlock .passkey-icon")).toBeVisible({ timeout: 30_000 });
  await authenticator.setUserVerified(false);
  await allowButton(page).click();
  const alert = page.locator(".key-unlock [role=alert]");
  await expect(alert).toContainText("nothing was shared");
  await expect(alert).toBeFocused();
  await expect(page).toHaveURL(/\/consent$/);
  await expect(allowButton(page)).toBeEnabled();
  connectJourneyDatabase();
  expect(await db().authorizationCode.count({ where: { clientId: client.clientId } })).toBe(0);
});

for (const locale of ["en", "de", "fi"] as const) {
  test(`after a mail sign-in, a person with a passphrase key is offered a passkey once, which then holds the key (${locale})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    await addVirtualAuthenticator(page);
    const email = uniqueEmail("passkey-offer");

    await startFlow(page, locale);
    await signInByLink(page, email);
    // Today's way: the passphrase and its backup file.
    await page.locator(".key-setup .button-link").first().click();
    await createKey(page);
    await connectSandboxBank(page);
    const offer = page.locator(".passkey-offer");
    await expect(offer).toBeVisible({ timeout: 30_000 });
    await checkScreenWidths(page, `passkey-${locale}-consent-offer`);
    await offer.locator(".button-secondary").click();
    await expect(page.locator(".passkey-added")).toBeVisible({ timeout: 30_000 });
    await checkScreenWidths(page, `passkey-${locale}-consent-offer-added`);
    const user = await userOf(email);
    expect(user.passkeys).toHaveLength(1);
    expect(parsePasskeyWrappedKey(user.passkeys[0]?.wrappedKey ?? "").publicKey).toBe(
      user.publicKey,
    );
    // This browser keeps the key held by the passkey, the backup file beside it.
    const kept = (await storedKeyRecord(page, user.id)) as { format: string; backup: unknown };
    expect(kept.format).toBe("bank-connect-passkey-key");
    expect(kept.backup).not.toBeNull();
    await allowButton(page).click();
    await expectKeyRelayed(page, user.publicKey);

    // A new device: the email field's passkey suggestion signs in, no mail, the key comes along.
    await forgetService(context, page);
    const mails = await mailsTo(email);
    await startFlow(page, locale);
    await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
    expect(await mailsTo(email)).toBe(mails);
    await connectSandboxBank(page);
    await expect(page.locator("#passphrase")).toHaveCount(0);
    await allowButton(page).click();
    await expectKeyRelayed(page, user.publicKey);
    await context.close();
  });
}

test("Not now hides the offer, and it is not offered again in this browser", async ({ page }) => {
  await addVirtualAuthenticator(page);
  const email = uniqueEmail("passkey-offer-later");
  await startFlow(page, "en");
  await signInByLink(page, email);
  await page.getByRole("button", { name: "Use a passphrase instead" }).click();
  await createKey(page);
  await connectSandboxBank(page);
  const offer = page.locator(".passkey-offer");
  await expect(offer).toBeVisible({ timeout: 30_000 });
  await offer.getByRole("button", { name: "Not now" }).click();
  await expect(offer).toHaveCount(0);
  await page.reload();
  await expect(allowButton(page)).toBeVisible({ timeout: 30_000 });
  await expect(page.locator(".passkey-offer")).toHaveCount(0);
  expect((await userOf(email)).passkeys).toHaveLength(0);
});
