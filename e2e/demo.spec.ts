import { expect, test } from "@playwright/test";
import {
  approveWithKey,
  connectSandboxBank,
  createKey,
  signInByLink,
  uniqueEmail,
} from "./support/journey";

test.describe.configure({ timeout: 180_000 });

/** Every account name the sandbox banks give (lib/upstream/sandbox/accounts.ts). */
const SANDBOX_ACCOUNT_NAME =
  /Lønkonto|Fælleskonto|Opsparingskonto|Erhvervskonto|Erhvervsopsparing|Lönekonto|Gemensamt konto|Sparkonto|Företagskonto|Företagssparkonto|Brukskonto|Felleskonto|Sparekonto|Driftskonto|Bedriftssparekonto|Käyttötili|Yhteistili|Säästötili|Yritystili|Yrityksen säästötili|Girokonto|Gemeinschaftskonto|Tagesgeldkonto|Geschäftskonto|Geschäftstagesgeld|Betaalrekening|Gezamenlijke rekening|Spaarrekening|Zakelijke rekening|Zakelijke spaarrekening/;

test("a newcomer tries the demo partner: connect, decrypted accounts, sync, revoke", async ({
  page,
}) => {
  const email = uniqueEmail("demo");
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

  await page.locator('form[action="/demo/sync"] button[type="submit"]').click();
  await expect(page.locator(".demo-sync-result")).toContainText(/Sync result: \d+ accounts/);
  await expect(steps).toContainText("POST /api/sync → 200");

  await page.locator('form[action="/demo/revoke"] button[type="submit"]').click();
  await expect(page.getByText("The key is revoked")).toBeVisible();
  await expect(steps).toContainText("POST /oauth/revoke → 200");
  await expect(steps).toContainText("GET /api/accounts → 401");
  await expect(page.locator(".demo-iban")).toHaveCount(0);
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
    form: { code: "x", state: "not-a-state", iss: "http://localhost:3100" },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(303);
  expect(response.headers()["location"]).toBe("/demo?notice=unknown_state");
});
