import { expect, test, type Page } from "@playwright/test";
import {
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  newPkce,
  PASSPHRASE,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";
import { addVirtualAuthenticator, forgetService, holdPasskeyAutofill } from "./support/passkeys";
import { FlowCounter, formatPath, summarize, type PathCount } from "./support/taps";

/**
 * The effort of the hosted flow, path by path, from the partner's button to
 * the relay (`npm run taps` prints the tables): a first-time person who keeps
 * their key in a passkey; a returning person with a synced passkey on a new
 * device (every trace of the service cleared), at a second partner; a
 * first-time person whose authenticator has no PRF, on the passphrase path.
 * The targets: the first time, at most 5 screens after the mail and no
 * passphrase; returning, at most 3 taps, no mail and no passphrase. The bank's
 * own pages (the sandbox bank here) are counted apart: every bank asks its own.
 */

test.describe.configure({ mode: "serial", timeout: 180_000 });

const partnerApp = partnerAppForSpec();

const FIRST_TIME_SCREENS_AFTER_MAIL = 5;
const RETURNING_TAPS = 3;

/** The partner's button: the flow starts at the authorization request. */
async function partnerButton(page: Page) {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge, { ui_locales: "en" }));
}

/** Sign-in by the mail's code: the address, Send, the code, Sign in. */
async function signInWithMailCode(counter: FlowCounter, page: Page, email: string) {
  await expect(page).toHaveURL(/\/login\?/);
  await counter.enter(page.locator("#email"), email, "email address");
  await counter.tap(page.locator('form[action="/login/request"] button[type="submit"]'), "Send");
  await expect(page).toHaveURL(/sent=1/);
  await counter.enterMailCode(page.locator("#code"));
  await counter.tap(page.locator('form[action="/login/code"] button[type="submit"]'), "Sign in");
}

/** The bank step, the bank's own page and "Allow access"; resolves when the partner has the relay. */
async function bankAndAllow(counter: FlowCounter, page: Page) {
  const relay = partnerApp().nextRelay();
  await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
  const row = page
    .locator(".bank-list li")
    .filter({ hasText: /Sandbox/ })
    .first();
  await counter.tap(row.locator('button[type="submit"]'), "the bank");
  await expect(page).toHaveURL(/\/sandbox\/authorize/);
  await counter.tap(page.locator('button[value="approve"]'), "approve at the bank");
  await expect(page).toHaveURL(/\/consent$/);
  const allow = page.locator('form.key-unlock button.button[type="submit"]');
  await expect(allow).toBeVisible({ timeout: 30_000 });
  await expect(page.locator("#passphrase")).toHaveCount(0);
  await counter.tap(allow, "Allow access");
  const fields = Object.fromEntries(await relay);
  expect(fields.code).toBeTruthy();
  expect(fields.privateKey).toBeTruthy();
}

function print(title: string, count: PathCount, targets: string[]) {
  const table = formatPath(title, count, targets);
  console.log(table);
  test.info().annotations.push({ type: "taps", description: table });
}

const holds = (ok: boolean) => (ok ? "holds" : "MISSED");

test("first time with a passkey: at most 5 screens after the mail, no passphrase", async ({
  page,
}) => {
  await addVirtualAuthenticator(page);
  const email = uniqueEmail("taps-first");
  const counter = await FlowCounter.start(page, email);
  await partnerButton(page);
  await signInWithMailCode(counter, page, email);
  await expect(page).toHaveURL(/\/setup$/, { timeout: 30_000 });
  await counter.tap(page.locator(".key-setup .passkey-button"), "Create a passkey");
  await bankAndAllow(counter, page);
  const count = await counter.stop();
  const summary = summarize(count);
  const afterMail = summary.screensAfterMail ?? Infinity;
  print("First time, with a passkey (PRF)", count, [
    `target: at most ${FIRST_TIME_SCREENS_AFTER_MAIL} screens after the mail (${afterMail}): ${holds(afterMail <= FIRST_TIME_SCREENS_AFTER_MAIL)}; ` +
      `no passphrase (${summary.passphrases}): ${holds(summary.passphrases === 0)}`,
  ]);
  expect(summary.mails).toBe(1);
  expect(afterMail).toBeLessThanOrEqual(FIRST_TIME_SCREENS_AFTER_MAIL);
  expect(summary.passphrases).toBe(0);
});

test("returning with a passkey on a new device: at most 3 taps, no mail, no passphrase", async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(page);
  const email = uniqueEmail("taps-returning");
  // The first time, at one partner (not counted): the passkey holds the key.
  await partnerButton(page);
  await signInByLink(page, email);
  await page.locator(".key-setup .passkey-button").click();
  await connectSandboxBank(page);
  const first = partnerApp().nextRelay();
  await page.locator('form.key-unlock button.button[type="submit"]').click();
  await first;

  // A new device with the same synced passkey, at a second partner.
  await forgetService(context, page);
  const counter = await FlowCounter.start(page, email);
  // The email field's suggestion would sign in at once in Chromium's virtual
  // authenticator; a person taps it, or the button: the button is counted.
  const released = await holdPasskeyAutofill(page);
  await partnerButton(page);
  await expect(page).toHaveURL(/\/login\?/);
  await counter.tap(page.locator(".passkey-sign-in button"), "Sign in with a passkey");
  await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
  await released();
  await bankAndAllow(counter, page);
  const count = await counter.stop();
  const summary = summarize(count);
  print("Returning, with a synced passkey on a new device (second partner)", count, [
    `target: at most ${RETURNING_TAPS} taps (${summary.taps}): ${holds(summary.taps <= RETURNING_TAPS)}; ` +
      `no mail (${summary.mails}): ${holds(summary.mails === 0)}; ` +
      `no passphrase (${summary.passphrases}): ${holds(summary.passphrases === 0)}`,
  ]);
  expect(summary.taps).toBeLessThanOrEqual(RETURNING_TAPS);
  expect(summary.entries).toBe(0);
  expect(summary.mails).toBe(0);
  expect(summary.passphrases).toBe(0);
});

test("first time without PRF: the passphrase path, counted", async ({ page }) => {
  await addVirtualAuthenticator(page, { prf: false });
  const email = uniqueEmail("taps-no-prf");
  const counter = await FlowCounter.start(page, email);
  await partnerButton(page);
  await signInWithMailCode(counter, page, email);
  await expect(page).toHaveURL(/\/setup$/, { timeout: 30_000 });
  await counter.tap(page.locator(".key-setup .passkey-button"), "Create a passkey");
  await expect(page.locator("#passphrase")).toBeFocused({ timeout: 30_000 });
  await counter.passphrase(page.locator("#passphrase"), PASSPHRASE, "passphrase");
  await counter.passphrase(page.locator("#confirm"), PASSPHRASE, "passphrase again");
  await counter.tap(page.locator('form button.button[type="submit"]'), "Create key");
  const download = page.waitForEvent("download");
  await counter.tap(page.locator('a[download="bank-connect-key-backup.json"]'), "save backup");
  await download;
  await counter.tap(page.locator("#saved"), "I saved the file");
  await counter.tap(page.locator('form button.button[type="submit"]'), "Continue");
  await bankAndAllow(counter, page);
  const count = await counter.stop();
  const summary = summarize(count);
  print("First time, no PRF (passkey for sign-in only; passphrase and backup file)", count, [
    "target: none (today's passphrase path, for comparison)",
  ]);
  // The passphrase path is what this device gets: the passphrase typed twice.
  expect(summary.passphrases).toBe(2);
  expect(summary.mails).toBe(1);
});
