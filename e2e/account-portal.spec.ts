import { expect, test, type Browser } from "@playwright/test";
import { db } from "../lib/db/client";
import { expectAxeClean, checkWidths } from "./support/screen-check";
import { connectJourneyDatabase } from "./support/database";
import {
  addSessionCookie,
  authorizePath,
  createJourneyClient,
  newPkce,
  PASSPHRASE,
  requestLoginMail,
  lastMail,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { grantFirstTime } from "./support/grant";
import { partnerAppForSpec } from "./support/partner-app";

/**
 * My access as a person finds and leaves it: linked from the landing page
 * and the grant mail, "Back to the partner" when they came from one, what
 * ending access cannot take back, every account named and an ended
 * partner's banks no longer "Active", a page that says what "Delete
 * everything" deleted, and the other-browser page's way back to the
 * partner. SHOTS_DIR, when set, keeps each screen at 390 and 1280 px in
 * English, German and Finnish.
 */

test.describe.configure({ timeout: 240_000 });

const partnerApp = partnerAppForSpec();
const LOCALES = ["en-US", "de-DE", "fi-FI"] as const;

/** A browser in `locale`, signed in as `email` (a fresh sign-in). */
async function signedIn(browser: Browser, email: string, locale: string) {
  connectJourneyDatabase();
  const user = await db().user.findUniqueOrThrow({ where: { email } });
  const context = await browser.newContext({ locale });
  await addSessionCookie(context, user.id);
  return context;
}

const partnerSite = () => new URL(partnerApp().redirectUri).origin;

test("from the landing page and the grant mail to My access and back to the partner; ending access says what it cannot take back", async ({
  page,
  browser,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const email = uniqueEmail("portal-links");
  const name = `Harbour Budget ${Date.now() % 100_000}`;
  const client = await createJourneyClient(partnerApp().redirectUri, { name });
  await grantFirstTime(page, partnerApp(), client, email);

  // The landing page leads a person to My access.
  await page.goto("/");
  await page.getByRole("link", { name: "Open My access" }).click();
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.locator("h1")).toHaveText("My access");
  // This browser's flow (finished) names the partner: the way back is its site.
  await expect(page.getByTestId("back-to-partner")).toHaveText(`Back to ${name}`);
  await expect(page.getByTestId("back-to-partner")).toHaveAttribute("href", partnerSite());

  // Ending access: the list and the confirmation say what the partner keeps.
  await expect(page.locator("#access-held-note")).toHaveText(
    /cannot take back data the application has already read, or a key it was already given/,
  );
  const item = page.getByTestId("access-item").filter({ hasText: name });
  await item.getByRole("button", { name: /End access/ }).click();
  await expect(item.locator(".account-confirm-note")).toHaveText(
    `Ending access cannot take back what ${name} has already read, or a key it was already given: that stays with ${name}. To have it deleted, ask ${name}.`,
  );
  await expectAxeClean(page);
  await item.getByRole("button", { name: "Keep access" }).click();

  // The grant mail links My access naming the partner; another browser gets the way back from it.
  connectJourneyDatabase();
  const mail = await db().outboxMessage.findFirstOrThrow({
    where: { to: email, code: null, subject: { contains: name } },
    orderBy: [{ sentAt: "desc" }, { id: "desc" }],
  });
  const link = /http\S+\/account\?from=[0-9a-f-]{36}/.exec(mail.text)?.[0] ?? "";
  expect(link).toBe(`${E2E_ORIGIN}/account?from=${client.partnerId}`);
  const other = await signedIn(browser, email, "en-US");
  const fromMail = await other.newPage();
  await fromMail.goto(link);
  await expect(fromMail.getByTestId("back-to-partner")).toHaveText(`Back to ${name}`);
  await expect(fromMail.getByTestId("back-to-partner")).toHaveAttribute("href", partnerSite());
  // Without a partner that is theirs, no way back is invented.
  await fromMail.goto(
    `/account?from=${(await createJourneyClient(partnerApp().redirectUri)).partnerId}`,
  );
  await expect(fromMail.getByTestId("back-to-partner")).toHaveCount(0);
  await other.close();

  // Inside a live flow, "Back to" returns to the flow's screen.
  const { challenge } = newPkce();
  await page.goto(authorizePath(client, challenge, { state: "again" }));
  await expect(page).toHaveURL(/\/(consent|banks)$/);
  const flowScreen = new URL(page.url()).pathname;
  await page.goto("/account");
  await expect(page.getByTestId("back-to-partner")).toHaveAttribute("href", flowScreen);
  await page.getByTestId("back-to-partner").click();
  await expect(page).toHaveURL(new RegExp(`${flowScreen}$`));
});

test("every account is named after unlocking; a partner whose access ended no longer shows as Active, at once and after a reload", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const email = uniqueEmail("portal-names");
  const name = `Fjord Ledger ${Date.now() % 100_000}`;
  const client = await createJourneyClient(partnerApp().redirectUri, { name });
  await grantFirstTime(page, partnerApp(), client, email);

  await page.goto("/account");
  const lines = page.getByTestId("bank-account");
  await expect(lines.first()).toHaveText(/^Account 1 \(/);
  await page.locator("#account-passphrase").fill(PASSPHRASE);
  await page.getByRole("button", { name: "Show account names" }).click();
  await expect(page.locator("#account-passphrase")).toHaveCount(0, { timeout: 30_000 });
  const count = await lines.count();
  expect(count).toBeGreaterThan(0);
  for (let index = 0; index < count; index += 1) {
    await expect(lines.nth(index)).toHaveText(/^\S.* · •••• \w{4}$/);
  }

  const bank = page.getByTestId("bank-item").first();
  await expect(bank.getByTestId("bank-status")).toHaveText("Active");
  await expect(bank).toContainText(`For ${name}`);
  await page.getByRole("button", { name: /End access/ }).click();
  await page.getByRole("button", { name: "End access now" }).click();
  await expect(page.getByRole("status").first()).toHaveText(/no longer has access/);
  await expect(bank.getByTestId("bank-status")).toHaveText("Access ended");
  await expect(bank).toContainText(`${name} no longer has access`);
  await page.reload();
  await expect(page.getByTestId("bank-item").first().getByTestId("bank-status")).toHaveText(
    "Access ended",
  );

  // The screen in three languages (the language picked, kept in a cookie), at a phone's and a
  // desktop's width, with the developer export open: this browser holds the key, the sign-in is fresh.
  for (const locale of LOCALES) {
    await page
      .context()
      .addCookies([{ name: "bc_locale", value: locale.slice(0, 2), url: E2E_ORIGIN }]);
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("lang", locale.slice(0, 2));
    await expect(page.getByTestId("bank-status").first()).not.toHaveText("Active");
    await page.locator("details.account-developer summary").click();
    await expect(page.locator(".account-developer-body button")).toBeVisible();
    await checkWidths(page, `account-${locale.slice(0, 2)}`);
  }
  // A sign-in older than the fresh window is offered to sign in again instead.
  await page.context().addCookies([{ name: "bc_locale", value: "en", url: E2E_ORIGIN }]);
  connectJourneyDatabase();
  await db().browserSession.updateMany({
    where: { user: { email } },
    data: { createdAt: new Date(Date.now() - 6 * 86_400_000) },
  });
  await page.reload();
  await page.locator("details.account-developer summary").click();
  await expect(page.getByRole("link", { name: "Sign in again" })).toHaveAttribute(
    "href",
    `/login?${new URLSearchParams({ email, reconfirm: "change", returnUrl: "/account" })}`,
  );
  await expect(page.locator(".account-developer-body button")).toHaveCount(0);
  await checkWidths(page, "account-export-reconfirm-en");
});

test("Delete everything ends on a page that says what was deleted, with the way back to the partner or home", async ({
  page,
  browser,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const email = uniqueEmail("portal-delete");
  const name = `Lantern Pay ${Date.now() % 100_000}`;
  const client = await createJourneyClient(partnerApp().redirectUri, { name });
  await grantFirstTime(page, partnerApp(), client, email);

  await page.goto("/account");
  await page.locator("#delete-confirm").fill(email);
  await page.getByRole("button", { name: "Delete everything" }).click();
  await expect(page).toHaveURL(/\/account\/deleted\?partner=/);
  await expect(page.locator("h1")).toHaveText("Everything is deleted");
  await expect(page.getByTestId("deleted-list").locator("li")).toHaveText([
    "Your bank connections",
    "The accounts, balances and transactions stored for you",
    "Every application's access: their keys were revoked, so they can no longer read anything here",
    "Your sign-in address and your key's registration",
  ]);
  await expect(page.getByText("What an application already read stays with it")).toBeVisible();
  const back = page.getByRole("link", { name: `Return to ${name}` });
  await expect(back).toHaveAttribute("href", partnerSite());
  await expectAxeClean(page);
  connectJourneyDatabase();
  expect(await db().user.count({ where: { email } })).toBe(0);
  const deletedPage = new URL(page.url());

  for (const locale of LOCALES) {
    // Another browser, not signed in: the partner given is checked against its registered sites.
    const context = await browser.newContext({ locale });
    const shown = await context.newPage();
    await shown.goto(`${deletedPage.pathname}${deletedPage.search}`);
    await expect(shown.locator(`main a[href="${partnerSite()}"]`)).toContainText(name);
    await checkWidths(shown, `account-deleted-${locale.slice(0, 2)}`);
    // A site the partner never registered is not linked: the way back is the home page.
    const forged = new URLSearchParams(deletedPage.search);
    forged.set("site", "https://evil.example");
    await shown.goto(`/account/deleted?${forged}`);
    await expect(shown.locator("main a.button")).toHaveAttribute("href", "/");
    await context.close();
  }
});

test("the landing page's way to My access, in three languages", async ({ browser }) => {
  for (const locale of LOCALES) {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    await page.goto("/");
    await expect(page.locator('#main a[href="/account"]')).toBeVisible();
    await checkWidths(page, `home-${locale.slice(0, 2)}`);
    await context.close();
  }
});

test("the other-browser page's Start again leads to a partner served on this origin at its own path, not the home page", async ({
  page,
  browser,
}) => {
  const name = `Demo Corner ${Date.now() % 100_000}`;
  const client = await createJourneyClient(`${E2E_ORIGIN}/demo/callback`, { name });
  const email = uniqueEmail("portal-other");
  const { challenge } = newPkce();
  await page.goto(authorizePath(client, challenge));
  await requestLoginMail(page, email);
  const mail = await lastMail(email);
  for (const locale of LOCALES) {
    const other = await browser.newContext({ locale });
    const otherPage = await other.newPage();
    await otherPage.goto(mail.link ?? "");
    await expect(otherPage.locator('form[action="/login/link/confirm"]')).toHaveCount(0);
    const startAgain = otherPage.locator("main a").filter({ hasText: name });
    await expect(startAgain).toHaveAttribute("href", "/demo");
    await checkWidths(otherPage, `other-browser-${locale.slice(0, 2)}`);
    await other.close();
  }
});
