import { expect, test, type Browser, type Page } from "@playwright/test";
import { db } from "../lib/db/client";
import { connectJourneyDatabase } from "./support/database";
import { checkScreenWidths } from "./support/screen-check";
import {
  addSessionCookie,
  approveWithKey,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  newPkce,
  signInByLink,
  uniqueEmail,
  type JourneyClient,
} from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";

/**
 * Flow analytics on the partner dashboard: three people go through the
 * hosted flow and stop at different steps; the owner sees each of them
 * counted, at phone and desktop widths, with and without JavaScript.
 */

test.describe.configure({ timeout: 180_000 });

const partnerApp = partnerAppForSpec();

/** A fresh browser (its own flow cookie) starting an authorization of `client`. */
async function startFlow(browser: Browser, client: JourneyClient) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(authorizePath(client, newPkce().challenge));
  await expect(page).toHaveURL(/\/login\?/);
  return { context, page };
}

/** The partner's owner, signed in, in a browser with or without JavaScript. */
async function ownerPage(
  browser: Browser,
  client: JourneyClient,
  options: { javaScriptEnabled?: boolean; locale?: string; width?: number } = {},
): Promise<Page> {
  connectJourneyDatabase();
  const owner = await db().partnerOwner.findFirstOrThrow({
    where: { partnerId: client.partnerId },
  });
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    locale: options.locale ?? "en-US",
    viewport: { width: options.width ?? 1280, height: 900 },
  });
  await addSessionCookie(context, owner.userId);
  return context.newPage();
}

const stat = (page: Page, name: string) => page.locator(`[data-stat="${name}"]`);

test("three flows ending at different steps are counted on the analytics page", async ({
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);

  // One only started, one signed in and left at key setup, one approved.
  const started = await startFlow(browser, client);
  const signedIn = await startFlow(browser, client);
  await signInByLink(signedIn.page, uniqueEmail());
  await expect(signedIn.page).toHaveURL(/\/setup$/);
  const approved = await startFlow(browser, client);
  const relay = partnerApp().nextRelay();
  await signInByLink(approved.page, uniqueEmail());
  await createKey(approved.page);
  await connectSandboxBank(approved.page);
  await approveWithKey(approved.page);
  expect((await relay).map(([name]) => name)).toContain("code");
  // A reload of a screen already counted counts nothing more.
  await signedIn.page.reload();
  for (const flow of [started, signedIn, approved]) await flow.context.close();

  const page = await ownerPage(browser, client);
  await page.goto("/dashboard");
  await page.getByRole("link", { name: "Flow analytics" }).click();
  await expect(page).toHaveURL(/\/dashboard\/analytics(\?partner=[0-9a-f-]+)?$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Flow analytics");
  await expect(stat(page, "started")).toHaveText("3");
  await expect(stat(page, "approved")).toHaveText("1");
  await expect(stat(page, "conversion")).toHaveText("33%");
  await expect(stat(page, "median")).not.toHaveText("–");
  await expect(page.locator("#funnel-desc")).toHaveText(
    "Started: 3 · 100%; Signed in: 2 · 67%; Key set up: 1 · 33%; Bank connected: 1 · 33%; Approved: 1 · 33%",
  );
  await expect(stat(page, "cancelled")).toHaveText("0");
  await expect(stat(page, "failed")).toHaveText("0");
  await checkScreenWidths(page, "en-7d");

  // The period picker and the client form, each keeping the partner shown.
  await page.getByRole("link", { name: "Last 24 hours" }).click();
  await expect(page).toHaveURL(new RegExp(`\\?partner=${client.partnerId}&period=24h$`));
  await expect(page.getByRole("link", { name: "Last 24 hours" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(stat(page, "started")).toHaveText("3");
  await page.getByLabel("Client").selectOption(client.clientId);
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(
    new RegExp(`\\?partner=${client.partnerId}&period=24h&client=${client.clientId}$`),
  );
  await expect(stat(page, "approved")).toHaveText("1");
  await page.context().close();

  // In German: numbers and dates in the locale's format.
  const german = await ownerPage(browser, client, { locale: "de-DE" });
  await german.goto("/dashboard/analytics?period=30d");
  await expect(german.getByRole("heading", { level: 1 })).toHaveText("Flow-Analyse");
  await expect(stat(german, "conversion")).toHaveText("33 %");
  await expect(german.locator("#trend-title")).toHaveText("Begonnen und freigegeben pro Tag (UTC)");
  await checkScreenWidths(german, "de-30d");
  await german.context().close();

  // Without JavaScript: the same figures, and the period picker and client form still work.
  const plain = await ownerPage(browser, client, { javaScriptEnabled: false });
  await plain.goto("/dashboard/analytics?period=30d");
  await expect(stat(plain, "started")).toHaveText("3");
  await plain.getByRole("link", { name: "Last 7 days" }).click();
  await expect(plain).toHaveURL(/period=7d/);
  await plain.getByLabel("Client").selectOption(client.clientId);
  await plain.getByRole("button", { name: "Show" }).click();
  await expect(plain).toHaveURL(new RegExp(`period=7d&client=${client.clientId}`));
  await expect(stat(plain, "approved")).toHaveText("1");
  await plain.context().close();
});

test("another partner's client is not found, and a stranger sees no analytics", async ({
  browser,
}) => {
  const mine = await createJourneyClient(partnerApp().redirectUri);
  const theirs = await createJourneyClient(partnerApp().redirectUri);
  const page = await ownerPage(browser, mine);
  const response = await page.goto(`/dashboard/analytics?client=${theirs.clientId}`);
  expect(response?.status()).toBe(404);
  const api = await page.request.get(`/api/partner/analytics?client=${theirs.clientId}`);
  expect(api.status()).toBe(404);
  const bad = await page.request.get("/api/partner/analytics?period=forever");
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ error: "invalid_request" });
  await page.context().close();

  const anonymous = await browser.newPage();
  await anonymous.goto("/dashboard/analytics");
  await expect(anonymous).toHaveURL(/\/login\?returnUrl=%2Fdashboard%2Fanalytics/);
  await anonymous.close();
});
