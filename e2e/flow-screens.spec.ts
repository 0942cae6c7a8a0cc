import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import {
  authorizePath,
  createJourneyClient,
  lastMail,
  newPkce,
  requestLoginMail,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import {
  hashBrowserNonce,
  hashLinkToken,
  hashPin,
  newBrowserNonce,
  newLinkToken,
} from "../lib/auth/login-secrets";
import { verifyLoginPin } from "../lib/auth/login-verification";
import { db } from "../lib/db/client";
import { partnerAppForSpec } from "./support/partner-app";
import { expectAxeClean } from "./support/screen-check";

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();

const LOCALES = ["da", "de", "en", "es", "fi", "fr", "it", "nb", "nl", "pl", "pt", "sv"] as const;
type Messages = { [key: string]: string | Messages };
type Catalogue = Record<string, Messages>;
const catalogue = (locale: string): Catalogue =>
  JSON.parse(
    readFileSync(path.resolve(import.meta.dirname, `../messages/${locale}.json`), "utf8"),
  ) as Catalogue;
const SCREEN_NAMESPACES = [
  "Flow",
  "Login",
  "LoginLink",
  "Setup",
  "Banks",
  "SandboxBank",
  "Consent",
];

/** A namespace's messages as [dotted key, text], nested groups (Mail.granted.…) included. */
function flatten(messages: Messages | undefined, prefix = ""): [string, string][] {
  return Object.entries(messages ?? {}).flatMap(([key, value]) =>
    typeof value === "string" ? [[prefix + key, value]] : flatten(value, `${prefix}${key}.`),
  );
}

/** English strings (placeholder-free parts) that must not show on a screen in another language. */
function englishLeftovers(text: string, locale: string, namespaces = SCREEN_NAMESPACES): string[] {
  if (locale === "en") return [];
  const en = catalogue("en");
  const translated = catalogue(locale);
  const found: string[] = [];
  for (const namespace of namespaces) {
    const theirs = new Map(flatten(translated[namespace]));
    for (const [key, english] of flatten(en[namespace])) {
      if (theirs.get(key) === english) continue;
      for (const fragment of english.split(/\{[^}]*\}|#/)) {
        const piece = fragment.trim();
        if (piece.length >= 12 && text.includes(piece))
          found.push(`${namespace}.${key}: "${piece}"`);
      }
    }
  }
  return found;
}

async function expectScreenIn(page: Page, locale: string) {
  await expect(page.locator("html")).toHaveAttribute("lang", locale);
  expect(englishLeftovers(await page.locator("body").innerText(), locale)).toEqual([]);
}

async function expectCancelled(page: Page, state: string) {
  const relay = partnerApp().nextRelay();
  await page.locator('form[action="/oauth/cancel"] button[type="submit"]').click();
  const values = Object.fromEntries(await relay);
  expect(values).toMatchObject({ error: "access_denied", state, iss: E2E_ORIGIN });
  // The browser lands on the partner's page before the test goes on.
  await page.waitForURL(partnerApp().redirectUri);
}

test.describe("back to the partner (/docs/flow)", () => {
  test("from login", async ({ page }) => {
    const client = await createJourneyClient(partnerApp().redirectUri);
    await page.goto(authorizePath(client, newPkce().challenge, { state: "c-login" }));
    await expect(page).toHaveURL(/\/login/);
    await expectCancelled(page, "c-login");
  });

  test("from key setup", async ({ page }) => {
    const client = await createJourneyClient(partnerApp().redirectUri);
    await page.goto(authorizePath(client, newPkce().challenge, { state: "c-setup" }));
    await signInByLink(page, uniqueEmail());
    await expect(page).toHaveURL(/\/setup$/);
    await expectCancelled(page, "c-setup");
  });

  test("from the bank picker and from consent", async ({ page }) => {
    const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
    await page.goto(authorizePath(client, newPkce().challenge, { state: "c-consent" }));
    await signInByLink(page, uniqueEmail());
    await expect(page).toHaveURL(/\/consent$/);
    await expectCancelled(page, "c-consent");

    await page.goto(authorizePath(client, newPkce().challenge, { state: "c-banks" }));
    await expect(page).toHaveURL(/\/consent$/);
    await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
    await expect(page).toHaveURL(/\/banks/);
    await expectCancelled(page, "c-banks");
  });
});

test.describe("languages and accessibility (ui_locales, /docs/flow)", () => {
  test("ui_locales=de-DE en renders every screen in German, accessibly", async ({ page }) => {
    const client = await createJourneyClient(partnerApp().redirectUri);
    await page.goto(authorizePath(client, newPkce().challenge, { ui_locales: "de-DE en" }));
    await expectScreenIn(page, "de");
    await expectAxeClean(page, { seriousOnly: true });
    const email = uniqueEmail();
    await requestLoginMail(page, email);
    await expectScreenIn(page, "de");
    await expectAxeClean(page, { seriousOnly: true });
    await page.goto((await lastMail(email)).link ?? "");
    await expectScreenIn(page, "de");
    await expectAxeClean(page, { seriousOnly: true });
    await page.locator('form[action="/login/link/confirm"] button[type="submit"]').click();
    await expect(page).toHaveURL(/\/setup$/);
    await expectScreenIn(page, "de");
    await expectAxeClean(page, { seriousOnly: true });
    // The mail speaks German too.
    const mail = await lastMail(email);
    expect(englishLeftovers(`${mail.subject}\n${mail.text}`, "de", ["Mail"])).toEqual([]);
  });

  test("an unsupported ui_locales value is ignored", async ({ browser }) => {
    const context = await browser.newContext({ locale: "sv-SE" });
    const page = await context.newPage();
    const client = await createJourneyClient(partnerApp().redirectUri);
    await page.goto(authorizePath(client, newPkce().challenge, { ui_locales: "xx" }));
    await expectScreenIn(page, "sv");
    await context.close();
  });

  for (const locale of LOCALES) {
    test(`a whole journey in ${locale} shows no English leftovers`, async ({ page }) => {
      const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
      await page.goto(authorizePath(client, newPkce().challenge, { ui_locales: locale }));
      await expectScreenIn(page, locale);
      const email = uniqueEmail();
      await requestLoginMail(page, email);
      await expectScreenIn(page, locale);
      await page.goto((await lastMail(email)).link ?? "");
      await expectScreenIn(page, locale);
      await page.locator('form[action="/login/link/confirm"] button[type="submit"]').click();
      await expect(page).toHaveURL(/\/consent$/);
      await expectScreenIn(page, locale);
      await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
      await expect(page).toHaveURL(/\/banks/);
      await expectScreenIn(page, locale);
      const relay = partnerApp().nextRelay();
      await page.locator(".bank-list li").first().locator('button[type="submit"]').click();
      await expectScreenIn(page, locale);
      await expectAxeClean(page, { seriousOnly: true });
      await page.locator('button[value="approve"]').click();
      expect(Object.fromEntries(await relay).code).toBeTruthy();
    });
  }
});

test.describe("security of the screens", () => {
  test("screens refuse framing", async ({ request }) => {
    const response = await request.get("/login");
    expect(response.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response.headers()["x-frame-options"]).toBe("DENY");
  });

  test("consent approval without the flow's CSRF token, or from a foreign Origin, is refused", async ({
    page,
  }) => {
    const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
    await page.goto(authorizePath(client, newPkce().challenge));
    await signInByLink(page, uniqueEmail());
    await expect(page).toHaveURL(/\/consent$/);
    const csrf = await page
      .locator('form[action="/consent/approve"] input[name="csrf"]')
      .inputValue();
    const post = (form: Record<string, string>, origin: string) =>
      page.request.post("/consent/approve", { form, headers: { Origin: origin }, maxRedirects: 0 });
    expect((await post({}, E2E_ORIGIN)).status()).toBe(403);
    expect((await post({ csrf: "forged" }, E2E_ORIGIN)).status()).toBe(403);
    expect((await post({ csrf }, "https://evil.example")).status()).toBe(403);
    expect((await post({ csrf }, E2E_ORIGIN)).status()).toBe(303);
  });

  test("a magic link survives a mail scanner's GET and HEAD and signs in only the browser that asked", async ({
    page,
    browser,
    request,
  }) => {
    const client = await createJourneyClient(partnerApp().redirectUri);
    await page.goto(authorizePath(client, newPkce().challenge));
    const email = uniqueEmail();
    await requestLoginMail(page, email);
    const link = (await lastMail(email)).link ?? "";
    expect((await request.get(link)).status()).toBe(200);
    expect((await request.head(link)).status()).toBe(200);

    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(link);
    await expect(otherPage.locator("main [role=alert]")).toBeVisible();
    // Posting the confirmation anyway (no button is offered) signs nothing in.
    const confirm = await otherPage.request.post("/login/link/confirm", {
      form: { token: new URL(link).searchParams.get("token") ?? "" },
      headers: { Origin: E2E_ORIGIN },
      maxRedirects: 0,
    });
    expect(confirm.headers()["location"]).toContain("result=other_browser");
    expect((await other.cookies()).some((cookie) => cookie.name === "bc_session")).toBe(false);
    await other.close();

    await page.goto(link);
    await page.locator('form[action="/login/link/confirm"] button[type="submit"]').click();
    await expect(page).toHaveURL(/\/setup$/);
  });

  test("a sixth wrong code is refused even with the right code", async ({ page }) => {
    const client = await createJourneyClient(partnerApp().redirectUri);
    await page.goto(authorizePath(client, newPkce().challenge, { challenge: "pin_code" }));
    const email = uniqueEmail();
    await requestLoginMail(page, email);
    const code = (await lastMail(email)).code ?? "";
    const wrong = code === "000000" ? "111111" : "000000";
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await page.locator("#code").fill(wrong);
      await page.locator('form[action="/login/code"] button[type="submit"]').click();
      await expect(page.locator("main [role=alert]")).toBeVisible();
    }
    await page.locator("#code").fill(code);
    await page.locator('form[action="/login/code"] button[type="submit"]').click();
    await expect(page).toHaveURL(/error=locked/);
  });

  test("ten wrong codes for an address pause codes: the screen says for how long, and the link still signs in", async ({
    page,
  }) => {
    const client = await createJourneyClient(partnerApp().redirectUri);
    const email = uniqueEmail();
    // Eight wrong codes for the address from another browser (two challenges of its own).
    const browserNonce = newBrowserNonce();
    for (const pins of [
      ["000001", "000002", "000003", "000004", "000005"],
      ["000006", "000007", "000008"],
    ]) {
      const id = randomUUID();
      await db().loginChallenge.create({
        data: {
          id,
          email,
          linkTokenHash: hashLinkToken(newLinkToken()),
          pinHash: hashPin(id, "123456"),
          expiresAt: new Date(Date.now() + 15 * 60_000),
          browserHash: hashBrowserNonce(browserNonce),
        },
      });
      for (const pin of pins) {
        const guess = { email, pin, browserNonce, clientIp: "192.0.2.10" };
        expect((await verifyLoginPin(guess)).status).not.toBe("ok");
      }
    }

    await page.goto(
      authorizePath(client, newPkce().challenge, { challenge: "pin_code", ui_locales: "de" }),
    );
    await requestLoginMail(page, email);
    const { code, link } = await lastMail(email);
    const wrong = code === "000000" ? "111111" : "000000";
    const submit = page.locator('form[action="/login/code"] button[type="submit"]');
    // The address has two wrong codes left today, whatever this challenge has.
    await page.locator("#code").fill(wrong);
    await submit.click();
    await expect(page).toHaveURL(/error=wrong&left=1/);
    await page.locator("#code").fill(wrong);
    await submit.click();
    await expect(page).toHaveURL(/error=pin_closed/);
    // Even the right code is refused while codes are paused for the address.
    await page.locator("#code").fill(code ?? "");
    await submit.click();
    await expect(page).toHaveURL(/error=pin_closed/);
    await expect(page.locator("main [role=alert]")).toContainText("in 24 Stunden");
    await expectScreenIn(page, "de");
    await expectAxeClean(page, { seriousOnly: true });

    await page.goto(link ?? "");
    await page.locator('form[action="/login/link/confirm"] button[type="submit"]').click();
    await expect(page).toHaveURL(/\/setup$/);
  });
});
