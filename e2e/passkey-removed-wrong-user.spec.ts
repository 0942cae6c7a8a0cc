import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { db } from "../lib/db/client";
import { connectJourneyDatabase } from "./support/database";
import {
  authorizePath,
  createJourneyClient,
  newPkce,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";
import {
  addVirtualAuthenticator,
  forgetService,
  holdPasskeyAutofill,
  type VirtualAuthenticator,
} from "./support/passkeys";
import { checkScreenWidths } from "./support/screen-check";

/**
 * The sign-in page when the passkey tapped is not the way in
 * (docs/sessions.md#passkeys): a passkey removed on My access signs
 * nobody in, says so, has the authenticator forget it and leaves the email
 * field ready; a passkey of another account than the address the partner
 * passed (login_hint) or the person typed signs nobody in either, names its
 * account and lets the person choose, before anything is shared. Screens at
 * 390 and 1280 px in en and de.
 */

test.describe.configure({ timeout: 300_000 });

const partnerApp = partnerAppForSpec();

/** Starts a flow at a new partner, in `locale`, with the partner's address hint if given. */
async function startFlow(page: Page, locale: string, loginHint?: string) {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(
    authorizePath(client, newPkce().challenge, {
      ui_locales: locale,
      ...(loginHint ? { login_hint: loginHint } : {}),
    }),
  );
  await expect(page).toHaveURL(/\/login\?/);
}

/** A person who made a passkey in the key step of a first flow, still signed in. */
async function personWithPasskey(page: Page, authenticator: VirtualAuthenticator, label: string) {
  const email = uniqueEmail(label);
  await startFlow(page, "en");
  await signInByLink(page, email);
  await page.locator(".key-setup .passkey-button").click();
  await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
  expect(await authenticator.credentials()).toHaveLength(1);
  return email;
}

const signedIn = async (context: BrowserContext) =>
  (await context.cookies()).some((cookie) => cookie.name.endsWith("bc_session"));

const passkeyButton = (page: Page) => page.locator(".passkey-sign-in button.passkey-button");

for (const locale of ["en", "de"] as const) {
  test(`a removed passkey signs nobody in, says so and leaves the email field ready (${locale})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    const authenticator = await addVirtualAuthenticator(page);
    const email = await personWithPasskey(page, authenticator, "passkey-removed");
    // With a backup file saved as the way back, the passkey is removed on My access;
    // the authenticator still holds it.
    connectJourneyDatabase();
    await db().user.update({ where: { email }, data: { keyBackupAt: new Date() } });
    await page.goto("/account");
    const item = page.locator("section.passkeys .passkey-item");
    await expect(item).toHaveCount(1, { timeout: 30_000 });
    await item.locator(".button-secondary").first().click();
    await item.locator(".account-confirm .button-danger").click();
    await expect(item).toHaveCount(0, { timeout: 30_000 });
    expect(await db().passkey.count({ where: { user: { email } } })).toBe(0);
    expect(await authenticator.credentials()).toHaveLength(1);
    // Later, elsewhere: nothing of the service in the browser.
    await forgetService(context, page);

    const released = await holdPasskeyAutofill(page);
    await startFlow(page, locale, email);
    await passkeyButton(page).click();
    const gone = page.locator(".passkey-gone[role=alert]");
    await expect(gone).toBeVisible({ timeout: 30_000 });
    await expect(gone).toContainText(
      locale === "en" ? "no longer on your account" : "nicht mehr in Ihrem Konto",
    );
    await expect(page.locator("#email")).toBeFocused();
    await expect(page.locator("#email")).toHaveValue(email);
    await expect(page).toHaveURL(/\/login\?/);
    expect(await signedIn(context)).toBe(false);
    // Told the service no longer knows it, the authenticator forgets the passkey.
    await expect.poll(async () => (await authenticator.credentials()).length).toBe(0);
    await checkScreenWidths(page, `passkey-${locale}-removed`);
    await released();

    // The mail sign-in, one press away.
    await page.locator('form[action="/login/request"] button[type="submit"]').click();
    await expect(page).toHaveURL(/sent=1/);
    expect(await signedIn(context)).toBe(false);
    await context.close();
  });

  test(`a passkey of another account than the address given signs nobody in until the person chooses (${locale})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    const authenticator = await addVirtualAuthenticator(page);
    const owner = await personWithPasskey(page, authenticator, "passkey-owner");
    // Another device of the same person: nothing of the service in the browser.
    await forgetService(context, page);
    const hinted = uniqueEmail("passkey-hinted");

    // The partner passed another address (login_hint).
    const released = await holdPasskeyAutofill(page);
    await startFlow(page, locale, hinted);
    await passkeyButton(page).click();
    const other = page.locator(".passkey-other-account");
    await expect(other).toBeVisible({ timeout: 30_000 });
    await expect(other).toBeFocused();
    await expect(other.locator(".alert-title")).toContainText(owner);
    await expect(other).toContainText(hinted);
    await expect(page).toHaveURL(/\/login\?/);
    expect(await signedIn(context)).toBe(false);
    await checkScreenWidths(page, `passkey-${locale}-other-account`);

    // The address given was meant: the email field, ready for the mail.
    await other.locator(".button-secondary").click();
    await expect(other).toHaveCount(0);
    await expect(page.locator("#email")).toBeFocused();
    await expect(page.locator("#email")).toHaveValue(hinted);
    expect(await signedIn(context)).toBe(false);

    // A typed address counts the same.
    const typed = uniqueEmail("passkey-typed");
    await page.locator("#email").fill(typed);
    await passkeyButton(page).click();
    await expect(other).toContainText(typed, { timeout: 30_000 });
    expect(await signedIn(context)).toBe(false);

    // The passkey's account was meant: one more tap signs in as it, and the flow says who.
    await other.locator(".button").first().click();
    await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
    await released();
    expect(await signedIn(context)).toBe(true);
    await expect(page.locator(".flow-footer .signed-in")).toContainText(owner);
    await context.close();
  });
}
