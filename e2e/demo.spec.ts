import { expect, test, type BrowserContext } from "@playwright/test";
import { db } from "../lib/db/client";
import { openStoredOrNull } from "../lib/demo/secrets";
import { connectJourneyDatabase } from "./support/database";
import {
  approveWithKey,
  connectSandboxBank,
  createKey,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { recordSecret } from "./support/secrets-seen";
import { E2E_ORIGIN } from "./support/origin";

test.describe.configure({ timeout: 180_000 });

/** Every account name the sandbox banks give (lib/upstream/sandbox/accounts.ts). */
const SANDBOX_ACCOUNT_NAME =
  /Lønkonto|Fælleskonto|Opsparingskonto|Erhvervskonto|Erhvervsopsparing|Lönekonto|Gemensamt konto|Sparkonto|Företagskonto|Företagssparkonto|Brukskonto|Felleskonto|Sparekonto|Driftskonto|Bedriftssparekonto|Käyttötili|Yhteistili|Säästötili|Yritystili|Yrityksen säästötili|Girokonto|Gemeinschaftskonto|Tagesgeldkonto|Geschäftskonto|Geschäftstagesgeld|Betaalrekening|Gezamenlijke rekening|Spaarrekening|Zakelijke rekening|Zakelijke spaarrekening/;

const keysCookie = async (context: BrowserContext) =>
  (await context.cookies()).find((cookie) => cookie.name === "demo_keys");

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

  await page.locator('form[action="/demo/sync"] button[type="submit"]').click();
  await expect(page.locator(".demo-sync-result")).toContainText(/Sync result: \d+ accounts/);
  await expect(steps).toContainText("POST /api/sync → 200");

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
