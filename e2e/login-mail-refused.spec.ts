import { expect, test } from "@playwright/test";
import { startSmtpRelay, type SmtpRelay } from "../test/smtp-relay";
import { uniqueEmail } from "./support/journey";
import { checkScreenWidths } from "./support/screen-check";
import { startSecondServer, type SecondServer } from "./support/second-server";
import { recordSecret } from "./support/secrets-seen";

/**
 * Sign-in when the mail provider refuses the mail (docs/sign-in-limits.md,
 * "A mail that was not sent"): a second instance of the service whose SMTP
 * relay is a real SMTP server in this process (smtp-server, RFC 5321), which
 * refuses every recipient until the test lets it accept.
 */

test.describe.configure({ timeout: 240_000 });

let refusing = true;
let relay: SmtpRelay;
let server: SecondServer;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  relay = await startSmtpRelay(() =>
    refusing ? { code: 554, message: "Service unavailable" } : null,
  );
  server = await startSecondServer(
    { SMTP_URL: `smtp://127.0.0.1:${relay.port}`, SMTP_REQUIRE_TLS: "false" },
    2,
  );
});

test.afterAll(async () => {
  await server?.stop();
  await relay?.close();
});

test("a refused sign-in mail: the login screen says so, keeps the address, and the retry signs in", async ({
  page,
  context,
}) => {
  const email = uniqueEmail("relay-refused");
  await page.goto(`${server.origin}/dashboard`);
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fdashboard/);
  await page.locator("#email").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();

  await expect(page).toHaveURL(/error=mail_failed/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("We could not send the email");
  await expect(page.locator(".alert-error")).toContainText(`Nothing was sent to ${email}`);
  await expect(page.locator("#email")).toHaveValue(email);
  expect(relay.delivered.has(email)).toBe(false);
  await checkScreenWidths(page, "login-mail-failed-en");

  await context.addCookies([{ name: "bc_locale", value: "de", url: server.origin }]);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Wir konnten die E-Mail nicht senden",
  );
  await expect(page.getByRole("button", { name: "Erneut versuchen" })).toBeVisible();
  await checkScreenWidths(page, "login-mail-failed-de");
  await context.clearCookies({ name: "bc_locale" });
  await page.reload();

  // The relay takes mail again; trying again at once is not held back by the
  // one-mail-a-minute limit, since the refused mail was never sent.
  refusing = false;
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page).toHaveURL(/sent=1/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Check your email");
  await expect.poll(() => relay.delivered.has(email)).toBe(true);
  const link = /http:\/\/localhost:\d+\/login\/link\?token=[\w%-]+/.exec(
    relay.delivered.get(email) ?? "",
  )?.[0];
  expect(link?.startsWith(`${server.origin}/`)).toBe(true);
  recordSecret("pin", /^\d{6}$/m.exec(relay.delivered.get(email) ?? "")?.[0]);
  recordSecret("magic-link token", new URL(link ?? "http://x/").searchParams.get("token"));
  await page.goto(link ?? "");
  await page.locator('form[action="/login/link/confirm"] button[type="submit"]').click();
  await expect(page).toHaveURL(`${server.origin}/dashboard`);
  await expect(page.getByText(`Signed in as ${email}`, { exact: true })).toBeVisible();
});
