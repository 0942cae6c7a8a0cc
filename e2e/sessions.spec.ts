import { randomBytes } from "node:crypto";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { FRESH_SIGN_IN_SECONDS } from "../lib/auth/sessions";
import { keyedHash } from "../lib/crypto/keyed-hash";
import { db } from "../lib/db/client";
import { createPartner } from "../lib/partners/partners";
import { connectJourneyDatabase } from "./support/database";
import {
  addSessionCookie,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  exchangeCode,
  lastMail,
  newPkce,
  signInByCode,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { partnerAppForSpec } from "./support/partner-app";

/**
 * Sign-out, who is signed in, and re-confirmation of stale sessions
 * (docs/sessions.md), in a real Chromium against the production build.
 */

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();

const SIGN_OUT = 'form[action="/logout"] button[type="submit"]';
const APPROVE = 'form[action="/consent/approve"] button[type="submit"]';
const FLOW_SIGN_IN = /\/login\?returnUrl=%2Flogin%2Fcontinue$/;

/** An address long enough to overflow a phone's width unless it wraps. */
const longEmail = () =>
  `firstname.middlename.lastname.household-${randomBytes(4).toString("hex")}@accounts.example-mail-provider.com`;

/** A browser already signed in as `email` (a second sign-in mail within the minute would wait). */
async function signedInBrowser(
  browser: Browser,
  email: string,
  options: { javaScriptEnabled?: boolean; width?: number } = {},
) {
  connectJourneyDatabase();
  const user = await db().user.upsert({ where: { email }, create: { email }, update: {} });
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    viewport: { width: options.width ?? 1280, height: 900 },
  });
  const value = await addSessionCookie(context, user.id);
  return { context, page: await context.newPage(), user, sessionValue: value };
}

/** The session row a cookie value stands for (null once revoked). */
function sessionRow(value: string) {
  connectJourneyDatabase();
  return db().browserSession.findUnique({
    where: { idHash: keyedHash("browser-session", value) },
  });
}

async function sessionCookieValue(page: Page): Promise<string | undefined> {
  const cookies = await page.context().cookies(E2E_ORIGIN);
  return cookies.find((cookie) => cookie.name.endsWith("bc_session"))?.value;
}

async function expectNoHorizontalScroll(page: Page) {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
}

test("signing out on a flow screen revokes the session; another address signs in and finishes the same flow", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  const first = uniqueEmail("first");
  const second = uniqueEmail("second");
  const { verifier, challenge } = newPkce();
  const relay = partnerApp().nextRelay();

  await page.goto(authorizePath(client, challenge, { state: "st-sign-out" }));
  await signInByCode(page, first);
  await expect(page).toHaveURL(/\/consent$/);
  await page.locator(APPROVE).click();
  await expect(page).toHaveURL(/\/banks$/);
  await expect(page.locator("footer .signed-in")).toContainText(first);
  const revoked = (await sessionCookieValue(page)) ?? "";
  expect(await sessionRow(revoked)).not.toBeNull();

  await page.locator(SIGN_OUT).click();
  await expect(page).toHaveURL(FLOW_SIGN_IN);
  // The same flow: its partner's sign-in page, nobody signed in, the session gone on the server.
  await expect(page.locator(".flow-partner")).toHaveText("Acme Budget");
  await expect(page.locator(".signed-in")).toHaveCount(0);
  expect(await sessionCookieValue(page)).toBeUndefined();
  expect(await sessionRow(revoked)).toBeNull();

  await signInByCode(page, second);
  // Consent again: the first person's consent left with them.
  await expect(page).toHaveURL(/\/consent$/);
  await expect(page.locator("main .signed-in")).toContainText(second);
  await page.locator(APPROVE).click();
  await connectSandboxBank(page);

  const values = Object.fromEntries(await relay);
  expect(values.state).toBe("st-sign-out");
  const token = await exchangeCode(client, values.code ?? "", verifier);
  const userinfo = await fetch(`${E2E_ORIGIN}/oauth/userinfo`, {
    headers: { Authorization: `Bearer ${token.access_token}` },
  });
  expect(((await userinfo.json()) as { email: string }).email).toBe(second);
});

test('"Not you?" on the consent screen signs out without JavaScript and returns to the same flow\'s sign-in; a long address wraps on a phone', async ({
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  const email = longEmail();
  const { context, page, sessionValue } = await signedInBrowser(browser, email, {
    javaScriptEnabled: false,
    width: 390,
  });
  await page.goto(authorizePath(client, newPkce().challenge));
  await expect(page).toHaveURL(/\/consent$/);
  await expect(page.locator("main .signed-in")).toContainText(email);
  await expectNoHorizontalScroll(page);

  await page.getByRole("button", { name: "Not you?" }).click();
  await expect(page).toHaveURL(FLOW_SIGN_IN);
  await expect(page.locator("#email")).toBeVisible();
  expect(await sessionRow(sessionValue)).toBeNull();

  // Someone else signs in, still without JavaScript, and is back at this flow's consent.
  const other = uniqueEmail("other");
  await signInByCode(page, other);
  await expect(page).toHaveURL(/\/consent$/);
  await expect(page.locator("main .signed-in")).toContainText(other);
  await context.close();
});

test("the dashboard shows who is signed in; GET and foreign posts do not sign out; the button does, back to the dashboard's sign-in", async ({
  browser,
}) => {
  connectJourneyDatabase();
  const email = longEmail();
  await createPartner({ name: "Plain Partner", ownerEmail: email });
  const { context, page, sessionValue } = await signedInBrowser(browser, email, { width: 390 });
  await page.goto("/dashboard");
  await expect(page.locator(".dashboard-who")).toContainText(email);
  await expect(page.locator(SIGN_OUT)).toHaveText("Sign out");
  await expectNoHorizontalScroll(page);

  // Neither a link (GET) nor another site's form post signs out.
  const get = await page.request.get("/logout", { maxRedirects: 0 });
  expect(get.status()).toBe(405);
  expect(get.headers().allow).toBe("POST");
  const foreign = await page.request.post("/logout", {
    headers: { Origin: "https://evil.example" },
    form: { csrf: "forged" },
    maxRedirects: 0,
  });
  expect(foreign.status()).toBe(403);
  const forged = await page.request.post("/logout", {
    headers: { Origin: E2E_ORIGIN },
    form: { csrf: "forged" },
    maxRedirects: 0,
  });
  expect(forged.status()).toBe(403);
  expect(await sessionRow(sessionValue)).not.toBeNull();
  await page.reload();
  await expect(page.locator(".dashboard-who")).toContainText(email);

  await page.locator(SIGN_OUT).click();
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fdashboard$/);
  expect(await sessionRow(sessionValue)).toBeNull();
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fdashboard$/);
  await context.close();
});

test("partner-key mode: a stale session re-confirms the sign-in before approving, then approves", async ({
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  const email = uniqueEmail("stale");
  const { context, page, sessionValue } = await signedInBrowser(browser, email);
  const { verifier, challenge } = newPkce();
  const relay = partnerApp().nextRelay();
  await page.goto(authorizePath(client, challenge, { state: "st-stale" }));
  await expect(page).toHaveURL(/\/consent$/);

  // The session was made longer ago than the window.
  connectJourneyDatabase();
  await db().browserSession.update({
    where: { idHash: keyedHash("browser-session", sessionValue) },
    data: { createdAt: new Date(Date.now() - (FRESH_SIGN_IN_SECONDS + 5 * 60) * 1000) },
  });
  await page.locator(APPROVE).click();
  await expect(page).toHaveURL(/\/login\?.*reconfirm=1/);
  await expect(page.locator("h1")).toHaveText("Confirm it is you");
  await expect(page.locator("main .notice")).toBeVisible();
  await expect(page.locator("#email")).toHaveValue(email);

  await page.locator('form[action="/login/request"] button[type="submit"]').click();
  await expect(page).toHaveURL(/sent=1/);
  const mail = await lastMail(email);
  await page.locator("#code").fill(mail.code ?? "");
  await page.locator('form[action="/login/code"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/consent$/);
  // The stale session is gone; the fresh one approves.
  expect(await sessionRow(sessionValue)).toBeNull();
  await page.locator(APPROVE).click();
  await connectSandboxBank(page);
  const values = Object.fromEntries(await relay);
  expect(values.state).toBe("st-stale");
  expect((await exchangeCode(client, values.code ?? "", verifier)).access_token).toBeTruthy();
  await context.close();
});
