import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { db } from "../lib/db/client";
import { rawSetting } from "../lib/env";
import { connectJourneyDatabase } from "./support/database";
import {
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  newPkce,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";
import { expectAxeClean } from "./support/screen-check";

/**
 * The bank picker (search as you type, with and without JavaScript, the
 * country preset from the language, the test scenarios apart) and the
 * progress screen after the bank's approval, which leads on by itself.
 */

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();

/** Signed in, consent given (partner-key mode): the browser stands on /banks. */
async function openPicker(page: Page, extra: Record<string, string> = {}) {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  await page.goto(authorizePath(client, newPkce().challenge, extra));
  const email = uniqueEmail();
  await signInByLink(page, email);
  await expect(page).toHaveURL(/\/consent$/);
  await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/banks/);
  return email;
}

/**
 * Marks the browser's newest ingest failed once it has ended (so that it
 * cannot overwrite the mark), as a failure of the bank would leave it.
 */
async function markIngestFailed(email: string) {
  connectJourneyDatabase();
  const where = { flow: { user: { email } } };
  await expect
    .poll(async () => (await db().bankIngest.findFirst({ where }))?.state, { timeout: 30_000 })
    .toBe("done");
  await db().bankIngest.updateMany({ where, data: { state: "failed", failure: "failed" } });
}

const visibleRows = (page: Page) => page.locator(".picker > section .bank-list li");

async function newPage(browser: Browser, options: { javaScriptEnabled?: boolean } = {}) {
  const context = await browser.newContext({ locale: "en-US", ...options });
  return context.newPage();
}

test("search as you type narrows the list without a reload; test scenarios sit apart, closed", async ({
  page,
}) => {
  await openPicker(page, { ui_locales: "en" });
  // English: every country; the scenario banks are in their own closed group.
  await expect(page.locator("#country")).toHaveValue("");
  const scenarios = page.locator("details.picker-tests");
  await expect(scenarios).not.toHaveAttribute("open", /.*/);
  await expect(scenarios.locator("summary")).toContainText("Test scenarios");
  await expect(visibleRows(page).filter({ hasText: "Scenario" })).toHaveCount(0);
  await expect(scenarios.locator(".bank-list li").first()).toBeHidden();
  await expectAxeClean(page, { seriousOnly: true });

  const before = await visibleRows(page).count();
  await page.locator("#q").pressSequentially("polder");
  await expect(visibleRows(page)).toHaveCount(1);
  await expect(visibleRows(page).first()).toContainText("Sandbox Polderbank NL");
  expect(before).toBeGreaterThan(1);
  // The address follows, without a navigation: a reload shows the same.
  await expect(page).toHaveURL(/q=polder/);

  await page.locator("#q").fill("no such bank");
  await expect(page.locator(".picker-empty")).toBeVisible();
  await expect(visibleRows(page)).toHaveCount(0);

  // Business banks: the labelled account type.
  await page.locator("#q").fill("handelsbank");
  await expect(visibleRows(page)).toHaveCount(1);
  await page.getByRole("radio", { name: "Business" }).check();
  await expect(visibleRows(page)).toHaveCount(2);
  await expect(visibleRows(page).filter({ hasText: "Sandbox Handelsbank DK" })).toHaveCount(1);
  await expect(visibleRows(page).first().locator('input[name="psuType"]')).toHaveValue("business");

  await page.locator("#q").fill("scenario");
  await expect(visibleRows(page)).toHaveCount(0);
  await scenarios.locator("summary").click();
  await expect(scenarios.locator(".bank-list li").first()).toBeVisible();
});

test("German: the country is preset to Germany, its popular banks first", async ({ page }) => {
  await openPicker(page, { ui_locales: "de" });
  await expect(page.locator("#country")).toHaveValue("DE");
  await expect(page.getByRole("heading", { name: "Beliebt in Deutschland" })).toBeVisible();
  await expect(page.locator("#popular-title + ul li").first()).toContainText(
    "Sandbox Sparkasse DE",
  );
  await expect(visibleRows(page).filter({ hasText: " DK" })).toHaveCount(0);
  await page.locator("#country").selectOption("");
  await expect(visibleRows(page).filter({ hasText: " DK" }).first()).toBeVisible();
  await expectAxeClean(page, { seriousOnly: true });
});

test("a bank already connected is not offered under Popular; the list marks it connected", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, uniqueEmail());
  await createKey(page);
  await expect(page).toHaveURL(/\/banks/);
  await page.goto("/banks?country=DK");
  await expect(page.locator("#popular-title + ul li").first()).toContainText("Sandbox Nordbank DK");
  await connectSandboxBank(page, /Sandbox Nordbank DK/);
  await expect(page).toHaveURL(/\/consent$/);

  await page.goto("/banks?country=DK");
  await expect(page.locator(".picker-connected")).toContainText("Sandbox Nordbank DK");
  await expect(
    page.locator("#popular-title + ul li").filter({ hasText: "Sandbox Nordbank DK" }),
  ).toHaveCount(0);
  const listed = page.locator("#banks-title + ul li").filter({ hasText: "Sandbox Nordbank DK" });
  await expect(listed).toContainText("Denmark · Connected");
  await expect(
    page.locator("#banks-title + ul li").filter({ hasText: "Sandbox Andelskasse DK" }),
  ).not.toContainText("Connected");
  await expectAxeClean(page, { seriousOnly: true });
});

test("on a desktop the country select shows its longest name whole", async ({ page }) => {
  await openPicker(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator("#country").selectOption("");
  // A select narrower than its own content (the longest option) cuts its text.
  const widths = await page.locator("#country").evaluate((select: HTMLSelectElement) => {
    const natural = select.cloneNode(true) as HTMLSelectElement;
    natural.style.width = "auto";
    natural.style.minWidth = "0";
    natural.style.position = "absolute";
    natural.style.visibility = "hidden";
    select.parentElement?.append(natural);
    const needed = natural.getBoundingClientRect().width;
    natural.remove();
    return { shown: select.getBoundingClientRect().width, needed };
  });
  expect(widths.shown).toBeGreaterThanOrEqual(widths.needed - 0.5);
});

test("without JavaScript the search form submits and a bank row starts the consent", async ({
  browser,
}) => {
  const page = await newPage(browser, { javaScriptEnabled: false });
  await openPicker(page, { ui_locales: "en" });
  await page.locator("#q").fill("sparkasse");
  await page.locator(".picker-submit").click();
  await expect(page).toHaveURL(/q=sparkasse/);
  await expect(visibleRows(page)).toHaveCount(1);

  const relay = partnerApp().nextRelay();
  await visibleRows(page).first().locator('button[type="submit"]').click();
  await expect(page).toHaveURL(/\/sandbox\/authorize/);
  const progress = page.waitForResponse(
    (response) => response.url().endsWith("/banks/progress") && response.status() === 200,
  );
  await page.locator('button[value="approve"]').click();
  // The progress screen, then (refreshing by itself) the relay to the partner.
  await progress;
  await page.waitForURL(/\/banks\/finish/, { timeout: 30_000 });
  await page.locator('button[type="submit"]').first().click();
  expect(Object.fromEntries(await relay).code).toBeTruthy();
  await page.context().close();
});

test("after the bank's approval the progress screen shows and leads on by itself", async ({
  page,
}) => {
  await openPicker(page, { ui_locales: "en" });
  const relay = partnerApp().nextRelay();
  await page.locator("#q").fill("nordbank");
  await expect(visibleRows(page)).toHaveCount(1);
  await visibleRows(page).first().locator('button[type="submit"]').click();
  const progress = page.waitForResponse(
    (response) => response.url().endsWith("/banks/progress") && response.status() === 200,
  );
  await page.locator('button[value="approve"]').click();
  const shown = await (await progress).text();
  expect(shown).toContain("Connecting Sandbox Nordbank DK");
  expect(Object.fromEntries(await relay).code).toBeTruthy();
});

test("a failed connection says so and offers to try again", async ({ page }) => {
  const email = await openPicker(page, { ui_locales: "en" });
  await page.locator("#q").fill("grachten");
  await expect(visibleRows(page)).toHaveCount(1);
  await visibleRows(page).first().locator('button[type="submit"]').click();
  // Drop the status polls, so that the screen stays while the ingest is marked failed.
  await page.route("**/banks/progress/status", (route) => route.abort());
  await page.locator('button[value="approve"]').click();
  await expect(page).toHaveURL(/\/banks\/progress$/);
  await markIngestFailed(email);
  // The screen's next poll finds the failure and shows it.
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await expect(page.locator(".alert[role=alert]")).toContainText("Nothing was stored");
  await expect(page.getByRole("button", { name: "Try again" })).toBeVisible();
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page).toHaveURL(/\/sandbox\/authorize/);
});

test("at 320 px the picker does not scroll sideways and a bank is in view on a 390×844 phone", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
  const page = await context.newPage();
  // Finnish: the longest words of the account type.
  await openPicker(page, { ui_locales: "fi" });
  const overflow = () =>
    page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
  expect(await overflow()).toBeLessThanOrEqual(0);
  await page.locator("#country").selectOption("");
  await expect(visibleRows(page).nth(5)).toBeVisible();
  expect(await overflow()).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator("#country").selectOption("FI");
  await expect(visibleRows(page).first()).toBeInViewport();
  await context.close();
});

const SHOTS = rawSetting("SHOTS_DIR");

test("screenshots of the picker and the progress screen", async ({ browser }) => {
  test.skip(!SHOTS, "SHOTS_DIR is not set");
  const dir = SHOTS ?? "";
  mkdirSync(dir, { recursive: true });
  for (const locale of ["en", "de", "fi"]) {
    for (const width of [390, 1280]) {
      const context = await browser.newContext({ viewport: { width, height: 844 } });
      const page = await context.newPage();
      const email = await openPicker(page, { ui_locales: locale });
      await page.screenshot({ path: path.join(dir, `banks-${locale}-${width}.png`) });
      await page.screenshot({
        path: path.join(dir, `banks-${locale}-${width}-full.png`),
        fullPage: true,
      });
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth).toBeLessThanOrEqual(width);
      await page.locator("#q").fill("zzz");
      await expect(page.locator(".picker-empty")).toBeVisible();
      await page.screenshot({ path: path.join(dir, `banks-empty-${locale}-${width}.png`) });
      await page.locator("#q").fill("nordbank");
      await page.locator("#country").selectOption("");
      await expect(visibleRows(page)).toHaveCount(1);
      await visibleRows(page).first().locator('button[type="submit"]').click();
      await page.route("**/banks/progress/status", (route) => route.abort());
      await page.locator('button[value="approve"]').click();
      await expect(page).toHaveURL(/\/banks\/progress$/);
      await page.screenshot({ path: path.join(dir, `progress-${locale}-${width}.png`) });
      await markIngestFailed(email);
      await page.unrouteAll({ behavior: "ignoreErrors" });
      await expect(page.locator(".alert[role=alert]")).toBeVisible();
      await page.screenshot({ path: path.join(dir, `failed-${locale}-${width}.png`) });
      await context.close();
    }
  }
});
