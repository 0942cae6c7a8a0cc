import { expect, test, type Browser } from "@playwright/test";
import { db } from "../lib/db/client";
import { expectAxeClean, checkWidths } from "./support/screen-check";
import { connectJourneyDatabase } from "./support/database";
import { addSessionCookie, createJourneyClient, uniqueEmail } from "./support/journey";
import { grantFirstTime } from "./support/grant";
import { partnerAppForSpec } from "./support/partner-app";

/**
 * A bank consent's end on My access (docs/events.md#reminders): the date, "ends
 * in N days" once it is close, and Renew, which goes through the bank's real
 * consent (the sandbox bank) and comes back to My access with the new date.
 * SHOTS_DIR, when set, keeps the list at 390 and 1280 px in English, German
 * and Finnish.
 */

test.describe.configure({ timeout: 240_000 });

const partnerApp = partnerAppForSpec();
const DAY_MS = 24 * 60 * 60 * 1000;

/** A browser signed in as `email`, the person's language set to `locale`. */
async function signedIn(browser: Browser, email: string, locale: string) {
  connectJourneyDatabase();
  const user = await db().user.update({ where: { email }, data: { locale } });
  const context = await browser.newContext({ locale });
  await addSessionCookie(context, user.id);
  return context;
}

test("My access shows when each consent ends, says how soon when close, and Renew renews it at the bank", async ({
  page,
  browser,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const email = uniqueEmail("consents");
  const client = await createJourneyClient(partnerApp().redirectUri, { name: "Fjord Budget" });
  await grantFirstTime(page, partnerApp(), client, email);

  connectJourneyDatabase();
  const connection = await db().connection.findFirstOrThrow({
    where: { tenant: { user: { email } } },
  });
  // The consent ends in 3 days (in UTC calendar days, as the page counts).
  const soon = new Date(Date.now() + 3 * DAY_MS);
  await db().connection.update({ where: { id: connection.id }, data: { validUntil: soon } });
  const day = (date: Date, locale: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(date);

  await page.goto("/account");
  const bank = page.getByTestId("bank-item");
  await expect(bank.getByTestId("bank-valid-until")).toHaveText(
    `Consent valid until ${day(soon, "en")}`,
  );
  await expect(bank.getByTestId("bank-ends-in")).toHaveText("Ends in 3 days");
  const renew = bank.getByTestId("bank-renew");
  await expect(renew).toHaveAttribute("href", `/account/connections/${connection.id}/renew`);
  await expectAxeClean(page);
  await checkWidths(page, "en-consents");

  for (const [locale, endsIn] of [
    ["de", "Endet in 3 Tagen"],
    ["fi", "Päättyy 3 päivän kuluttua"],
  ] as const) {
    const context = await signedIn(browser, email, locale);
    const other = await context.newPage();
    await other.goto("/account");
    await expect(other.getByTestId("bank-ends-in")).toHaveText(endsIn);
    await expect(other.getByTestId("bank-valid-until")).toContainText(day(soon, locale));
    await checkWidths(other, `${locale}-consents`);
    await context.close();
  }
  await db().user.update({ where: { email }, data: { locale: "en" } });

  // Renew: the bank's consent page, approved, then back to My access with a new end date.
  await page.setViewportSize({ width: 390, height: 844 });
  await renew.click();
  await expect(page).toHaveURL(/\/sandbox\/authorize/);
  await page.locator('button[value="approve"]').click();
  await expect(page).toHaveURL(/\/account\?renewal=connecting/);
  await expect(page.getByTestId("renewal-notice")).toHaveText(
    /The consent was renewed at your bank/,
  );
  await checkWidths(page, "en-consents-renewed");
  await expect
    .poll(
      async () =>
        (await db().connection.findUniqueOrThrow({ where: { id: connection.id } })).validUntil >
        new Date(Date.now() + 60 * DAY_MS),
      { timeout: 30_000 },
    )
    .toBe(true);
  // The page asks the server again by itself: the new date shows without a reload.
  const renewed = await db().connection.findUniqueOrThrow({ where: { id: connection.id } });
  await expect(page.getByTestId("bank-item")).toHaveCount(1);
  await expect(page.getByTestId("bank-valid-until")).toHaveText(
    `Consent valid until ${day(renewed.validUntil, "en")}`,
  );
  await expect(page.getByTestId("bank-ends-in")).toHaveCount(0);
});
