import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { db } from "../lib/db/client";
import { rawSetting } from "../lib/env";
import { connectJourneyDatabase } from "./support/database";
import {
  authorizePath,
  createJourneyClient,
  createKey,
  lastMail,
  newPkce,
  approveWithKey,
  requestLoginMail,
  type JourneyClient,
} from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";

/**
 * Phone first: every flow screen, the sandbox bank and the error screens at
 * 320, 390 and 1280 px in English, German and Finnish scroll no wider than
 * the window, and at 390 × 844 the screen's primary action is visible
 * without scrolling. FLOW_SHOTS_DIR, when set, also keeps a full-page
 * screenshot of each screen at 390 and 1280 px.
 */

test.describe.configure({ timeout: 240_000 });

const partnerApp = partnerAppForSpec();

const WIDTHS = [320, 390, 1280] as const;
const FOLD = { width: 390, height: 844 };
const SHOTS = rawSetting("FLOW_SHOTS_DIR");

/** 43 characters with no place to break: the address must wrap anywhere. */
const longEmail = () =>
  `${"a".repeat(20)}-${Math.random().toString(16).slice(2, 12).padEnd(10, "0")}@example.com`;

async function checkScreen(page: Page, locale: string, name: string, primary: string | null) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: FOLD.height });
    await page.evaluate(() => window.scrollTo(0, 0));
    const { scroll, client } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect
      .soft(scroll, `${locale} ${name} scrolls sideways at ${width} px`)
      .toBeLessThanOrEqual(client);
    if (width === FOLD.width && primary) {
      const box = await page.locator(primary).first().boundingBox();
      expect.soft(box, `${locale} ${name}: no primary action ${primary}`).not.toBeNull();
      expect
        .soft(
          (box?.y ?? 0) + (box?.height ?? 0),
          `${locale} ${name}: primary action below the fold`,
        )
        .toBeLessThanOrEqual(FOLD.height);
    }
    if (SHOTS && width !== 320) {
      mkdirSync(SHOTS, { recursive: true });
      // Phones: what the screen shows before scrolling; desktop: all of it.
      const fullPage = width !== FOLD.width;
      await page.screenshot({ path: path.join(SHOTS, `${locale}-${name}-${width}.png`), fullPage });
      if (locale === "en") {
        await page.emulateMedia({ colorScheme: "dark" });
        await page.screenshot({
          path: path.join(SHOTS, `${locale}-${name}-${width}-dark.png`),
          fullPage,
        });
        await page.emulateMedia({ colorScheme: "light" });
      }
    }
  }
  await page.setViewportSize(FOLD);
}

async function brandedClient(options: { recipientKey?: boolean } = {}): Promise<JourneyClient> {
  const client = await createJourneyClient(partnerApp().redirectUri, {
    ...options,
    name: "Acme Budget",
  });
  connectJourneyDatabase();
  await db().partner.update({
    where: { id: client.partnerId },
    data: { accentColor: "#5b2bd6", purpose: "To show your spending by category every month." },
  });
  return client;
}

async function newPage(browser: Browser, locale: string) {
  const context = await browser.newContext({ locale, viewport: FOLD });
  return { context, page: await context.newPage() };
}

for (const locale of ["en", "de", "fi"] as const) {
  test(`every screen fits a phone in ${locale}`, async ({ browser }) => {
    const { context, page } = await newPage(browser, locale);
    const userKey = await brandedClient();
    const ui = { ui_locales: locale };

    await page.goto(authorizePath(userKey, newPkce().challenge, ui));
    await checkScreen(page, locale, "login", 'form[action="/login/request"] button[type="submit"]');

    const email = longEmail();
    await requestLoginMail(page, email);
    const code = 'form[action="/login/code"] button[type="submit"]';
    await checkScreen(page, locale, "check-email", code);
    const mail = await lastMail(email);
    await page.locator("#code").fill(mail.code === "000000" ? "111111" : "000000");
    await page.locator(code).click();
    await expect(page.locator("main [role=alert]")).toBeVisible();
    await checkScreen(page, locale, "code-wrong", code);

    const other = await newPage(browser, locale);
    await other.page.goto(mail.link ?? "");
    await checkScreen(other.page, locale, "link-other-browser", null);
    await other.context.close();

    await page.goto(mail.link ?? "");
    const confirm = 'form[action="/login/link/confirm"] button[type="submit"]';
    await checkScreen(page, locale, "link", confirm);
    await page.locator(confirm).click();
    await expect(page).toHaveURL(/\/setup$/);
    await expect(page.locator("#passphrase")).toBeVisible();
    await checkScreen(page, locale, "setup", 'main form button[type="submit"]');
    // A passphrase easy to guess: the meter, the reason and the refusal.
    await page.locator("#passphrase").fill("password12");
    await page.locator("#confirm").fill("password12");
    await expect(page.locator(".strength-weak")).toBeVisible();
    await page.locator('main form button[type="submit"]').click();
    await expect(page.locator("main [role=alert]")).toBeVisible();
    // The refusal has the focus (scrolled into view); the action follows right under it.
    await checkScreen(page, locale, "setup-weak", null);

    await createKey(page);
    await expect(page).toHaveURL(/\/banks/);
    await checkScreen(page, locale, "banks", '.bank-list li button[type="submit"]');
    await page.locator(".bank-list li").first().locator('button[type="submit"]').click();
    await expect(page).toHaveURL(/\/sandbox\/authorize/);
    await checkScreen(page, locale, "sandbox-bank", 'button[value="approve"]');
    await page.locator('button[value="approve"]').click();
    await expect(page).toHaveURL(/\/consent$/);
    // The tab that set the key up holds it unlocked: no passphrase is asked.
    await expect(page.locator('form.key-unlock button.button[type="submit"]')).toBeVisible();
    await checkScreen(page, locale, "consent-user-key", '.action-bar button[type="submit"]');

    const relay = partnerApp().nextRelay();
    await approveWithKey(page);
    await relay;
    await page.waitForURL(partnerApp().redirectUri);
    await page.goto("/consent");
    await expect(page).toHaveURL(/\/error/);
    await checkScreen(page, locale, "error-done", ".actions a.button");

    // Partner-key mode: consent comes first, for the same signed-in person.
    const partnerKey = await brandedClient({ recipientKey: true });
    await page.goto(authorizePath(partnerKey, newPkce().challenge, ui));
    await expect(page).toHaveURL(/\/consent$/);
    const allow = 'form[action="/consent/approve"] button[type="submit"]';
    await checkScreen(page, locale, "consent-partner-key", allow);

    // The partner's link again in another tab: this one is out of date.
    const newer = await context.newPage();
    await newer.goto(authorizePath(partnerKey, newPkce().challenge, ui));
    await expect(page.locator(".tab-notice")).toBeVisible();
    await checkScreen(page, locale, "consent-replaced-tab", ".tab-notice a.button");
    await page.goto("/error?reason=stale_tab");
    await checkScreen(page, locale, "error-stale-tab", ".actions a.button");
    await page.goto("/error?reason=unavailable");
    await checkScreen(page, locale, "error-unavailable", ".actions a.button");
    await context.close();

    const fresh = await newPage(browser, locale);
    await fresh.page.goto("/error?reason=expired");
    await checkScreen(fresh.page, locale, "error-no-flow", ".actions a.button");
    // An app that is not registered: the page says so, in the person's language.
    await fresh.page.goto(`/oauth/authorize?client_id=obc_unknown&ui_locales=${locale}`);
    await checkScreen(fresh.page, locale, "authorize-unknown-client", null);
    await fresh.context.close();
  });
}
