import { expect, test } from "@playwright/test";
import { db } from "../lib/db/client";
import { connectJourneyDatabase } from "./support/database";
import {
  approveWithKey,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  lastMail,
  newPkce,
  requestLoginMail,
  signInByCode,
  signInByLink,
  signedInContext,
  uniqueEmail,
} from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";
import { expectAxeClean } from "./support/screen-check";

/**
 * No dead ends: every page that no longer matches the browser's flow says
 * what happened and offers the way that works.
 */

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();
const partnerSite = () => new URL(partnerApp().redirectUri).origin;

test("a magic link opened in another browser says at once to type the code in the first window", async ({
  page,
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { name: "Linkmoney" });
  await page.goto(authorizePath(client, newPkce().challenge));
  const email = uniqueEmail();
  await requestLoginMail(page, email);
  const mail = await lastMail(email);

  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await otherPage.goto(mail.link ?? "");
  // No button that cannot work: the page says where to go, branded as the partner.
  await expect(otherPage.locator('form[action="/login/link/confirm"]')).toHaveCount(0);
  await expect(otherPage.locator("main [role=alert]")).toBeFocused();
  await expect(otherPage.locator("main")).toContainText("Type the 6-digit code");
  await expect(otherPage.locator(".flow-partner")).toHaveText("Linkmoney");
  await expect(otherPage.locator(`main a[href="${partnerSite()}"]`)).toBeVisible();
  await expectAxeClean(otherPage, { seriousOnly: true });
  await other.close();

  // The first window still signs in with the code: looking used nothing.
  await page.locator("#code").fill(mail.code ?? "");
  await page.locator('form[action="/login/code"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/setup$/);
});

test("a pasted code with a space signs in; the field has focus, and an error takes it", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge, { challenge: "pin_code" }));
  await expect(page.locator("#email")).toBeFocused();
  const email = uniqueEmail();
  await requestLoginMail(page, email);
  await expect(page.locator("#code")).toBeFocused();
  const code = (await lastMail(email)).code ?? "";

  await page.locator("#code").fill("12 34");
  await page.locator('form[action="/login/code"] button[type="submit"]').click();
  await expect(page.locator("main [role=alert]")).toBeFocused();

  // Pasting "710 617" keeps every digit (no pattern, no 6-character limit).
  await page.locator("#code").focus();
  await page.keyboard.insertText(`${code.slice(0, 3)} ${code.slice(3)}`);
  await expect(page.locator("#code")).toHaveValue(`${code.slice(0, 3)} ${code.slice(3)}`);
  await page.locator('form[action="/login/code"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/setup$/);

  // Back to "Check your email" while signed in goes on to the flow's screen.
  await page.goBack();
  await expect(page).toHaveURL(/\/setup$/);
  await expect(page.locator("h1")).not.toHaveText(/email/i);
});

test("a wrong code marks the code field invalid, described by the message", async ({ page }) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge, { challenge: "pin_code" }));
  const email = uniqueEmail();
  await requestLoginMail(page, email);
  const field = page.locator("#code");
  await expect(field).not.toHaveAttribute("aria-invalid", /.*/);
  const code = (await lastMail(email)).code ?? "";
  await field.fill(code === "000000" ? "111111" : "000000");
  await page.locator('form[action="/login/code"] button[type="submit"]').click();
  const message = page.locator("main [role=alert]");
  await expect(message).toContainText("That code is not right");
  await expect(field).toHaveAttribute("aria-invalid", "true");
  const messageId = await message.getAttribute("id");
  expect(messageId).toBeTruthy();
  expect((await field.getAttribute("aria-describedby"))?.split(" ")).toEqual([
    "code-help",
    messageId,
  ]);
  await expect(field).toHaveAccessibleDescription(/That code is not right/);
  await expectAxeClean(page, { seriousOnly: true });
});

test("two tabs: the older tab says it is out of date and continues with the newer flow", async ({
  page,
  context,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  await page.goto(authorizePath(client, newPkce().challenge, { state: "older" }));
  await signInByLink(page, uniqueEmail());
  await expect(page).toHaveURL(/\/consent$/);

  const newer = await context.newPage();
  await newer.goto(authorizePath(client, newPkce().challenge, { state: "newer" }));
  await expect(newer).toHaveURL(/\/consent$/);
  await expect(page.locator(".tab-notice")).toBeVisible();
  await expectAxeClean(page, { seriousOnly: true });

  // Allow in the older tab: no bare 403, but the way to the current flow.
  await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/error\?reason=stale_tab/);
  await expect(page.locator("main [role=alert]")).toBeVisible();
  await expectAxeClean(page, { seriousOnly: true });
  await page.locator(".actions a.button").click();
  await expect(page).toHaveURL(/\/consent$/);
  await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/banks/);
  const relay = partnerApp().nextRelay();
  await connectSandboxBank(page);
  expect(Object.fromEntries(await relay)).toMatchObject({ state: "newer" });
});

test("two tabs in user-key mode: Allow in the older tab goes to the current flow, not 'Try again'", async ({
  page,
  context,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge, { state: "older-key" }));
  await signInByLink(page, uniqueEmail());
  await createKey(page);
  await connectSandboxBank(page);
  await expect(page).toHaveURL(/\/consent$/);

  const newer = await context.newPage();
  await newer.goto(authorizePath(client, newPkce().challenge, { state: "newer-key" }));
  await expect(newer).toHaveURL(/\/consent$/);

  await approveWithKey(page);
  await expect(page).toHaveURL(/\/error\?reason=stale_tab/);
  await expect(page.locator("main [role=alert]")).toBeVisible();
});

test("two tabs at key setup: saving the key in the older tab goes to the current flow, not 'failed'", async ({
  page,
  context,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge, { state: "older-setup" }));
  await signInByLink(page, uniqueEmail());
  await expect(page).toHaveURL(/\/setup$/);

  const newer = await context.newPage();
  await newer.goto(authorizePath(client, newPkce().challenge, { state: "newer-setup" }));
  await expect(newer).toHaveURL(/\/setup$/);

  // The older tab's script posts the key with its replaced flow's token: the
  // server names the way forward and the screen follows it.
  await createKey(page);
  await expect(page).toHaveURL(/\/error\?reason=stale_tab/);
  await expect(page.locator("main [role=alert]")).toBeVisible();
  await page.locator(".actions a.button").click();
  await expect(page).toHaveURL(/\/setup$/);
});

test("Back after finishing says you're done and links to the partner, in the partner's look", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { name: "Donebudget" });
  connectJourneyDatabase();
  await db().partner.update({ where: { id: client.partnerId }, data: { accentColor: "#0a7d38" } });
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByCode(page, uniqueEmail());
  await createKey(page);
  await connectSandboxBank(page);
  await expect(page).toHaveURL(/\/consent$/);
  const relay = partnerApp().nextRelay();
  await approveWithKey(page);
  expect(Object.fromEntries(await relay).code).toBeTruthy();
  await page.waitForURL(partnerApp().redirectUri);

  await page.goBack();
  await expect(page).toHaveURL(/\/error/);
  await expect(page.locator("h1")).toHaveText("You're done");
  await expect(page.locator(".flow-partner")).toHaveText("Donebudget");
  await expect(page.locator(".actions a.button")).toHaveAttribute("href", partnerSite());
  const accent = await page
    .locator(".actions a.button")
    .evaluate((link) => getComputedStyle(link).backgroundColor);
  expect(accent).toBe("rgb(10, 125, 56)");
  // Nothing here can post to the finished flow.
  await expect(page.locator('form[action="/oauth/cancel"]')).toHaveCount(0);
  await expectAxeClean(page, { seriousOnly: true });
});

test("Back to the bank after the partner got the relay, and approving again, says you're done", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, uniqueEmail());
  await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
  const relay = partnerApp().nextRelay();
  await connectSandboxBank(page);
  expect(Object.fromEntries(await relay).code).toBeTruthy();
  await page.waitForURL(partnerApp().redirectUri);

  // The relay page replaced itself: Back shows the bank's page.
  await page.goBack();
  await expect(page).toHaveURL(/\/sandbox\/authorize/);
  await page.locator('button[value="approve"]').click();
  await expect(page).toHaveURL(/\/error/);
  await expect(page.locator("h1")).toHaveText("You're done");
  await expect(page.locator(".actions a.button")).toHaveAttribute("href", partnerSite());
});

test("approving again at the sandbox bank says the bank is already connected", async ({ page }) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByCode(page, uniqueEmail());
  await createKey(page);
  await connectSandboxBank(page);
  await expect(page).toHaveURL(/\/consent$/);

  await page.goBack();
  await expect(page).toHaveURL(/\/sandbox\/authorize/);
  await page.locator('button[value="approve"]').click();
  await expect(page).toHaveURL(/\/banks\?notice=connected/);
  await expect(page.locator("main [role=alert]")).toHaveClass(/alert-success/);
  await expectAxeClean(page, { seriousOnly: true });
  await page.locator('form[action="/banks/continue"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/consent$/);
});

test("the step indicator names the step and its place", async ({ page }) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge));
  await expect(page.locator(".steps")).toContainText("Step 1 of 4");
  await expect(page.locator('.steps [aria-current="step"]')).toContainText("Sign in");
  await signInByCode(page, uniqueEmail());
  await expect(page).toHaveURL(/\/setup$/);
  await expect(page.locator(".steps")).toContainText("Step 2 of 4");
  await expect(page.locator('.steps [aria-current="step"]')).toContainText("Your key");
  await expectAxeClean(page, { seriousOnly: true });
});

test("Back from the bank picker to the key page: the indicator names the key, not the bank", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByCode(page, uniqueEmail());
  await createKey(page);
  await expect(page).toHaveURL(/\/banks/);
  await expect(page.locator(".steps-count")).toContainText("Step 3 of 4");
  await expect(page.locator('.steps [aria-current="step"]')).toContainText("Bank");
  await page.goBack();
  await expect(page).toHaveURL(/\/setup$/);
  await expect(page.locator("h1")).toContainText("encryption key");
  await expect(page.locator(".steps-count")).toContainText("Step 2 of 4");
  await expect(page.locator(".steps-count")).toContainText("Your key");
  await expect(page.locator('.steps [aria-current="step"]')).toContainText("Your key");
});

test("the key import page in a new browser is the key step, not Approve", async ({
  page,
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  const relay = partnerApp().nextRelay();
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByCode(page, email);
  await createKey(page);
  await connectSandboxBank(page);
  await approveWithKey(page);
  await relay;

  // Another browser: the account has a key and a bank, this browser holds no key.
  const context = await signedInContext(browser, email);
  const device = await context.newPage();
  await device.goto(authorizePath(client, newPkce().challenge));
  await expect(device).toHaveURL(/\/consent$/);
  await expect(device.locator(".steps-count")).toContainText("Step 2 of 2");
  await expect(device.locator('.steps [aria-current="step"]')).toContainText("Approve");
  await device.locator('a[href="/setup"]').click();
  await expect(device.locator("#backup")).toBeVisible();
  await expect(device.locator(".steps-count")).toContainText("Step 2 of 3");
  await expect(device.locator(".steps-count")).toContainText("Your key");
  await expect(device.locator('.steps [aria-current="step"]')).toContainText("Your key");
  await context.close();
});
