import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { db } from "../lib/db/client";
import { openStoredOrNull } from "../lib/demo/secrets";
import { DEMO_PARTNER_NAME } from "../scripts/lib/seed";
import { connectJourneyDatabase } from "./support/database";
import {
  approveWithKey,
  confirmBackup,
  connectSandboxBank,
  createKey,
  downloadBackup,
  PASSPHRASE,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { checkScreenWidths } from "./support/screen-check";
import { recordSecret } from "./support/secrets-seen";
import { E2E_ORIGIN } from "./support/origin";

test.describe.configure({ timeout: 180_000 });

/** Every account name the sandbox banks give (lib/upstream/sandbox/accounts.ts). */
const SANDBOX_ACCOUNT_NAME =
  /Lønkonto|Fælleskonto|Opsparingskonto|Erhvervskonto|Erhvervsopsparing|Lönekonto|Gemensamt konto|Sparkonto|Företagskonto|Företagssparkonto|Brukskonto|Felleskonto|Sparekonto|Driftskonto|Bedriftssparekonto|Käyttötili|Yhteistili|Säästötili|Yritystili|Yrityksen säästötili|Girokonto|Gemeinschaftskonto|Tagesgeldkonto|Geschäftskonto|Geschäftstagesgeld|Betaalrekening|Gezamenlijke rekening|Spaarrekening|Zakelijke rekening|Zakelijke spaarrekening/;

const keysCookie = async (context: BrowserContext) =>
  (await context.cookies()).find((cookie) => cookie.name === "demo_keys");

/** The demo's screen in English, German and Finnish, each at a phone's and a desktop's width. */
async function checkDemoScreens(page: Page, context: BrowserContext, name: string) {
  for (const locale of ["de", "fi", "en"]) {
    await context.addCookies([{ name: "bc_locale", value: locale, url: E2E_ORIGIN }]);
    await page.goto(page.url());
    await expect(page.locator("html")).toHaveAttribute("lang", locale);
    await checkScreenWidths(page, `${locale}-${name}`);
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

/** From /demo through the flow as a newcomer, back at /demo with the accounts shown. */
async function connectDemo(page: Page, email: string) {
  await page.goto("/demo");
  await page.locator('form[action="/demo/start"] button[type="submit"]').click();
  await signInByLink(page, email);
  await createKey(page);
  await connectSandboxBank(page);
  await approveWithKey(page);
  await expect(page).toHaveURL(/\/demo$/, { timeout: 30_000 });
  await expect(page.locator(".demo-iban").first()).toBeVisible();
}

/**
 * Back at /demo after the access ended elsewhere: the demo says so, shows no
 * account and no "Connected", forgets its keys, and "Connect again" goes
 * through the flow once more to the accounts.
 */
async function expectEndedThenConnectAgain(page: Page, context: BrowserContext) {
  await page.goto("/demo");
  const ended = page.locator(".demo-ended");
  await expect(ended).toContainText("Access ended");
  await expect(ended).toContainText("401 invalid_token");
  await expect(page.getByText("Connected.")).toHaveCount(0);
  await expect(page.locator(".demo-iban")).toHaveCount(0);
  await expect(page.locator('form[action="/demo/sync"]')).toHaveCount(0);
  const steps = page.locator(".demo-steps");
  await expect(steps).toContainText("GET /api/accounts → 401 (this page view)");
  await expect(steps).toContainText("Access ended: the service refuses this key");
  // The dead key and the relayed private key are forgotten.
  expect(await keysCookie(context)).toBeUndefined();

  await page.getByRole("button", { name: "Connect again" }).click();
  // A person whose bank is still connected goes straight to consent; after a new key, to a bank.
  await expect(page).toHaveURL(/\/(banks|consent)(\?|$)/, { timeout: 30_000 });
  if (new URL(page.url()).pathname === "/banks") await connectSandboxBank(page);
  await expect(page).toHaveURL(/\/consent$/, { timeout: 30_000 });
  const approve = page.locator('form.key-unlock button.button[type="submit"]');
  await expect(approve).toBeVisible({ timeout: 30_000 });
  // The tab forgets the key once a relay is posted: it may ask for the passphrase.
  if ((await page.locator("#passphrase").count()) > 0) {
    await page.locator("#passphrase").fill(PASSPHRASE);
  }
  await approve.click();
  await expect(page).toHaveURL(/\/demo$/, { timeout: 30_000 });
  await expect(page.locator(".demo-iban").first()).toHaveText(/^[A-Z]{2}\d{2}[A-Z0-9]{8,}$/);
  await expect(page.getByText("Connected.")).toBeVisible();
  await expect(page.locator(".demo-ended")).toHaveCount(0);
}

/** Every DemoSession row, each column as text: what a copy of the database would show. */
async function demoSessionRows(): Promise<string[]> {
  connectJourneyDatabase();
  const rows = await db().$queryRaw<{ row: string }[]>`
    SELECT row_to_json(d)::text AS row FROM "DemoSession" d`;
  return rows.map((r) => r.row);
}

test("a newcomer tries the demo partner: connect, decrypted accounts, sync, revoke", async ({
  page,
  context,
}) => {
  const email = uniqueEmail("demo");
  // The relay hands the demo the user's private key; the test keeps it to look for it afterwards.
  let relayedPrivateKey = "";
  page.on("request", (request) => {
    if (request.method() !== "POST" || !request.url().endsWith("/demo/callback")) return;
    relayedPrivateKey = new URLSearchParams(request.postData() ?? "").get("privateKey") ?? "";
    recordSecret("private key", relayedPrivateKey);
  });
  await page.goto("/");
  await page.getByRole("link", { name: "Try the demo partner" }).click();
  await expect(page).toHaveURL(/\/demo$/);
  await page.locator('form[action="/demo/start"] button[type="submit"]').click();

  await signInByLink(page, email);
  await createKey(page);
  await connectSandboxBank(page);
  await approveWithKey(page);

  // The relay POSTs to /demo/callback, which exchanges the code and sends the browser to /demo.
  await expect(page).toHaveURL(/\/demo$/, { timeout: 30_000 });
  await expect(page.locator(".demo-iban").first()).toHaveText(/^[A-Z]{2}\d{2}[A-Z0-9]{8,}$/);
  await expect(page.locator(".demo-account-name").first()).toHaveText(SANDBOX_ACCOUNT_NAME);
  const steps = page.locator(".demo-steps");
  await expect(steps).toContainText("iss check (RFC 9207)");
  await expect(steps).toContainText("POST /oauth/token → 200");
  await expect(steps).toContainText("GET /api/accounts → 200");
  // The relayed private key is never shown whole.
  await expect(steps).not.toContainText(/privateKey = MIG[A-Za-z0-9+/]{60,}/);

  // The keys are with this browser only: an encrypted, HttpOnly, short-lived cookie for /demo ...
  const cookie = await keysCookie(context);
  expect(cookie).toMatchObject({ path: "/demo", httpOnly: true, sameSite: "Lax" });
  expect(cookie!.expires * 1000 - Date.now()).toBeLessThanOrEqual(30 * 60 * 1000);
  expect(cookie!.value).not.toContain(relayedPrivateKey.slice(0, 40));
  // ... and in no column of any row of the demo's database.
  expect(relayedPrivateKey).toMatch(/^MIG/);
  const rows = await demoSessionRows();
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    // Each column as stored, and opened with the demo's storage key where it is sealed.
    const values = Object.values(JSON.parse(row) as Record<string, unknown>).map(String);
    const opened = values.map((value) => openStoredOrNull(value) ?? "");
    for (const value of [...values, ...opened]) {
      expect(value).not.toContain(relayedPrivateKey);
      expect(value).not.toMatch(/MIG[A-Za-z0-9+/]{40,}/);
      expect(value).not.toMatch(/ebk_[A-Za-z0-9_-]{20,}/);
    }
    expect(row).not.toMatch(/"(apiKey|privateKey)[A-Za-z]*":/);
  }

  await checkDemoScreens(page, context, "demo-connected");

  // On a phone the result lands where the reload does: at the top, not screens below.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('form[action="/demo/sync"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/demo\?notice=synced$/);
  const result = page.locator(".demo-sync-result");
  await expect(result).toContainText(/Sync result: \d+ accounts/);
  await expect(result).toBeInViewport();
  await expect(steps).toContainText("POST /api/sync → 200");
  await checkDemoScreens(page, context, "demo-synced");

  await page.locator('form[action="/demo/revoke"] button[type="submit"]').click();
  await expect(page.getByText("The key is revoked")).toBeVisible();
  await expect(steps).toContainText("POST /oauth/revoke → 200");
  await expect(steps).toContainText("GET /api/accounts → 401");
  await expect(page.locator(".demo-iban")).toHaveCount(0);
  // Revoking deleted the keys cookie.
  expect(await keysCookie(context)).toBeUndefined();
});

test("cancelling at the service shows the partner that the user cancelled", async ({ page }) => {
  await page.goto("/demo");
  await page.locator('form[action="/demo/start"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/login\?/);
  await page.locator('form[action="/oauth/cancel"] button[type="submit"]').click();
  await expect(page).toHaveURL(/\/demo$/);
  await expect(page.getByText("You cancelled at the service")).toBeVisible();
  await expect(page.locator(".demo-steps")).toContainText("error = access_denied");
});

test("a relay with an unknown state is refused", async ({ request }) => {
  const response = await request.post("/demo/callback", {
    form: { code: "x", state: "not-a-state", iss: E2E_ORIGIN },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(303);
  expect(response.headers()["location"]).toBe("/demo?notice=unknown_state");
});

test.describe("the access ends outside the demo", () => {
  test("ended at /account: the demo says access ended, forgets the key and connects again", async ({
    page,
    context,
  }) => {
    await connectDemo(page, uniqueEmail("demo-ended"));
    await page.goto("/account");
    const item = page.getByTestId("access-item").filter({ hasText: DEMO_PARTNER_NAME });
    await item.getByRole("button", { name: /End access/ }).click();
    await item.getByRole("button", { name: "End access now" }).click();
    await expect(page.getByRole("status").first()).toContainText("no longer has access");

    await page.goto("/demo");
    await checkDemoScreens(page, context, "demo-ended");
    await expectEndedThenConnectAgain(page, context);
  });

  test("a new key at /account: the service refuses the demo's key (401), and the demo connects again", async ({
    page,
    context,
  }) => {
    await connectDemo(page, uniqueEmail("demo-new-key"));
    await page.goto("/account?key=start-over");
    await page.locator("#word").fill("start over");
    await page.locator("#passphrase").fill(PASSPHRASE);
    await page.locator("#confirm").fill(PASSPHRASE);
    await page.getByRole("button", { name: "Make a new key" }).click();
    await downloadBackup(page);
    await confirmBackup(page);
    await expect(page).toHaveURL(/\/account$/, { timeout: 30_000 });

    // Starting over revokes every key that read the old data: the API answers 401, not 409.
    await expectEndedThenConnectAgain(page, context);
  });
});
