import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type Locator, type Page } from "@playwright/test";
import { generateKeyPair } from "../lib/crypto/envelope";
import { db } from "../lib/db/client";
import { rawSetting } from "../lib/env";
import { createClient, rotateClientSecret } from "../lib/partners/clients";
import { createPartner } from "../lib/partners/partners";
import { connectJourneyDatabase } from "./support/database";
import { addSessionCookie, uniqueEmail } from "./support/journey";

/**
 * Moments are shown as date, time and time zone in the reader's language and
 * zone: the dashboard's security log, the decryption key's "Installed", a
 * rotated secret's end, and the person's key on /account. SHOTS_DIR, when
 * set, keeps a screenshot of each screen at 390 and 1280 px.
 */

test.describe.configure({ timeout: 120_000 });

const SHOTS = rawSetting("SHOTS_DIR");
const ZONE = "Europe/Helsinki";

/** Helsinki is UTC+2 (winter) or UTC+3 (summer): its name or offset is given. */
const HELSINKI = /EET|EEST|OEZ|OESZ|GMT\+[23]|UTC\+[23]/;

/**
 * A time of day ("3:05", "15.05"), the reader's zone, and no date said
 * twice. The server's HTML says UTC (it cannot know the zone); the browser
 * then shows its own.
 */
async function expectDateAndTime(locator: Locator) {
  await expect(locator).toHaveText(HELSINKI);
  const text = (await locator.innerText()).trim();
  expect(text).toMatch(/\d{1,2}[:.]\d{2}/);
  const halves = text.split(/\s+/);
  expect(halves.slice(0, halves.length / 2).join(" ")).not.toBe(
    halves.slice(halves.length / 2).join(" "),
  );
  return text;
}

async function signedInPage(browser: Browser, userId: string, locale: string): Promise<Page> {
  const context = await browser.newContext({ locale, timezoneId: ZONE });
  await addSessionCookie(context, userId);
  return context.newPage();
}

/** The page at 390 and 1280 px, and `part` of it on its own (readable at a glance). */
async function shoot(page: Page, name: string, part?: Locator) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    await part?.screenshot({ path: path.join(SHOTS, `${name}-${width}-part.png`) });
  }
}

for (const locale of ["en-US", "de-DE", "fi-FI"]) {
  const language = locale.slice(0, 2);

  test(`${language}: the security log, the key's install and a secret's end say date, time and zone`, async ({
    browser,
  }) => {
    connectJourneyDatabase();
    const ownerEmail = uniqueEmail("owner");
    const partner = await createPartner({ name: "Clock Partner", ownerEmail });
    await db().partner.update({
      where: { id: partner.id },
      data: {
        recipientPublicKey: generateKeyPair().publicKeyRawB64,
        recipientKeyFingerprint: "0123456789abcdef",
        recipientKeyInstalledAt: new Date(),
      },
    });
    const { client } = await createClient({
      partnerId: partner.id,
      redirectUris: ["http://127.0.0.1:9/callback"],
    });
    await rotateClientSecret(client.id);
    const owner = await db().user.findUniqueOrThrow({ where: { email: ownerEmail } });

    const page = await signedInPage(browser, owner.id, locale);
    await page.goto("/dashboard");
    const log = page.getByTestId("security-log");
    await expect(log.locator("tbody tr").filter({ hasText: /\S/ }).first()).toBeVisible();
    await expect(log.locator("tbody tr")).not.toHaveCount(0);
    for (const cell of await log.locator("tbody tr td:first-child time").all()) {
      await expectDateAndTime(cell);
    }
    await expectDateAndTime(page.getByTestId("installed-key").locator("dd time"));
    // "The previous secret works until …", in the client's card and in the rotation's row.
    const clientCard = page.locator("article.client");
    const until = clientCard.locator("p.muted.small").first();
    await expect(until).toHaveText(HELSINKI);
    await expect(until).toHaveText(/\d{1,2}[:.]\d{2}/);
    await shoot(page, `date-time-dashboard-${language}`, page.locator("#security-log"));
    await page.context().close();
  });

  test(`${language}: /account says when the person's key was made, with time and zone`, async ({
    browser,
  }) => {
    connectJourneyDatabase();
    const user = await db().user.create({
      data: {
        email: uniqueEmail("clock"),
        publicKey: generateKeyPair().publicKeyRawB64,
        publicKeyAt: new Date(),
      },
    });
    const page = await signedInPage(browser, user.id, locale);
    await page.goto("/account");
    await expectDateAndTime(page.locator(".account-facts dd time"));
    await shoot(
      page,
      `date-time-account-${language}`,
      page.locator("section[aria-labelledby=key-title]"),
    );
    await page.context().close();
  });
}
