import { expect, test, type Browser } from "@playwright/test";
import { db } from "../lib/db/client";
import { connectJourneyDatabase } from "./support/database";
import {
  approveWithKey,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  exchangeCode,
  newPkce,
  signInByCode,
  signedInContext,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { partnerAppForSpec } from "./support/partner-app";

/**
 * A signed-in browser whose sign-in is days old cannot end access, delete
 * everything or start over until the person signs in again by mail
 * (docs/sessions.md#re-confirming-before-an-irreversible-change); after
 * that, they are back on the page and the change goes through.
 */

test.describe.configure({ timeout: 180_000 });

const partnerApp = partnerAppForSpec();

/** Makes every session of the person look six days old. */
async function ageSessions(email: string) {
  connectJourneyDatabase();
  await db().browserSession.updateMany({
    where: { user: { email } },
    data: { createdAt: new Date(Date.now() - 6 * 86_400_000) },
  });
}

/**
 * A person who set up a key, connected a bank and granted a partner access,
 * in a browser signed in without a mail (so the re-confirmation's mail is
 * not held back as a second mail within the minute).
 */
async function grantedBrowser(browser: Browser, label: string) {
  const email = uniqueEmail(label);
  connectJourneyDatabase();
  await db().user.create({ data: { email } });
  const client = await createJourneyClient(partnerApp().redirectUri, {
    name: `Stale ${label} ${Date.now()}`,
  });
  const context = await signedInContext(browser, email);
  const page = await context.newPage();
  const { verifier, challenge } = newPkce();
  const relay = partnerApp().nextRelay();
  await page.goto(authorizePath(client, challenge));
  await createKey(page);
  await connectSandboxBank(page);
  await approveWithKey(page);
  const values = Object.fromEntries(await relay);
  await page.waitForURL(partnerApp().redirectUri);
  const key = (await exchangeCode(client, values.code ?? "", verifier)).access_token;
  return { email, page, key };
}

const accountsStatus = async (key: string) =>
  (await fetch(`${E2E_ORIGIN}/api/accounts`, { headers: { Authorization: `Bearer ${key}` } }))
    .status;

test("a stale session is asked to sign in again before ending access, then the change goes through", async ({
  browser,
}) => {
  const { email, page, key } = await grantedBrowser(browser, "stale");
  await ageSessions(email);

  await page.goto("/account");
  const item = page.getByTestId("access-item").first();
  await item.getByRole("button", { name: /End access/ }).click();
  await item.getByRole("button", { name: "End access now" }).click();

  // The sign-in page, as the same address, saying why.
  await expect(page).toHaveURL(/\/login\?.*reconfirm=change/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Confirm it is you");
  await expect(page.getByText(/To protect your data, sign in again/)).toBeVisible();
  await expect(page.locator("#email")).toHaveValue(email);
  expect(await accountsStatus(key)).toBe(200);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    await page.screenshot({
      path: test.info().outputPath(`reconfirm-change-${width}.png`),
      fullPage: true,
    });
  }

  // The same screen in long-word languages, from the same (stale) browser session.
  for (const locale of ["de", "fi"]) {
    const other = await browser.newContext({ locale });
    await other.addCookies(await page.context().cookies());
    const screen = await other.newPage();
    await screen.goto(page.url());
    await expect(screen.locator("h1")).not.toHaveText("Confirm it is you");
    await expect(screen.locator("main .notice")).toBeVisible();
    for (const width of [390, 1280]) {
      await screen.setViewportSize({ width, height: 844 });
      await screen.screenshot({
        path: test.info().outputPath(`reconfirm-change-${locale}-${width}.png`),
        fullPage: true,
      });
    }
    await other.close();
  }

  await signInByCode(page, email);
  await expect(page).toHaveURL(/\/account$/);
  await page
    .getByTestId("access-item")
    .first()
    .getByRole("button", { name: /End access/ })
    .click();
  await page.getByRole("button", { name: "End access now" }).click();
  await expect(page.getByRole("status").first()).toContainText(/no longer has access/);
  expect(await accountsStatus(key)).toBe(401);
});

test("deleting everything with a stale session: sign in again first, then deleted, and the person is mailed", async ({
  browser,
}) => {
  const { email, page } = await grantedBrowser(browser, "stale-delete");
  await ageSessions(email);

  await page.goto("/account");
  await page.locator("#delete-confirm").fill(email);
  await page.getByRole("button", { name: "Delete everything" }).click();
  await expect(page).toHaveURL(/\/login\?.*reconfirm=change/);
  connectJourneyDatabase();
  expect(await db().user.count({ where: { email } })).toBe(1);

  await signInByCode(page, email);
  await expect(page).toHaveURL(/\/account$/);
  await page.locator("#delete-confirm").fill(email);
  await page.getByRole("button", { name: "Delete everything" }).click();
  await expect.poll(() => db().user.count({ where: { email } })).toBe(0);
  const mail = await db().outboxMessage.findFirstOrThrow({
    where: { to: email, code: null },
    orderBy: [{ sentAt: "desc" }, { id: "desc" }],
  });
  expect(mail.subject).toBe("Your data at Bank Connect was deleted");
});

test("starting over from /account with a stale session asks first, before a new key is made", async ({
  browser,
}) => {
  const { email, page } = await grantedBrowser(browser, "stale-start-over");
  await ageSessions(email);

  await page.goto("/account?key=start-over");
  await expect(page).toHaveURL(/\/login\?.*reconfirm=change/);
  await signInByCode(page, email);
  await expect(page).toHaveURL(/\/account\?key=start-over$/);
  await expect(page.locator("#passphrase")).toBeVisible();
});
