import { expect, test } from "@playwright/test";
import { signInByLink, uniqueEmail } from "./support/journey";
import { checkScreenWidths } from "./support/screen-check";
import { startSecondServer, type SecondServer } from "./support/second-server";

/**
 * Partner sign-up switched off (PARTNER_SELF_SIGNUP=false, the production
 * default; docs/partner-signup.md): a second instance of the service with that
 * setting, on the journeys' build and database. A signed-in person who owns no
 * partner is told that the operator adds them, with the address they signed in
 * with and the command, and can sign out.
 */

test.describe.configure({ timeout: 240_000 });

let server: SecondServer;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = await startSecondServer({ PARTNER_SELF_SIGNUP: "false" }, 1);
});

test.afterAll(async () => {
  await server?.stop();
});

test("with partner sign-up off, a person without a partner is told who adds them, and signs out", async ({
  page,
  context,
}) => {
  const email = uniqueEmail("closed");
  await page.goto(`${server.origin}/dashboard`);
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fdashboard/);
  await signInByLink(page, email);
  await expect(page).toHaveURL(`${server.origin}/dashboard`);

  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Ask the operator to add you");
  await expect(page.getByText(`${email} does not own a partner`)).toBeVisible();
  await expect(page.getByTestId("add-owner-command")).toHaveText(
    `npm run admin -- partner add-owner --partner <partner-id> --email ${email}`,
  );
  // No way to create a partner here.
  await expect(page.getByRole("button", { name: "Create partner" })).toHaveCount(0);
  await expect(page.getByLabel("Partner name")).toHaveCount(0);
  await expect(page.getByText(`Signed in as ${email}`)).toBeVisible();
  await checkScreenWidths(page, "signup-closed-en");

  await context.addCookies([{ name: "bc_locale", value: "de", url: server.origin }]);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Bitten Sie den Betreiber, Sie hinzuzufügen",
  );
  await checkScreenWidths(page, "signup-closed-de");
  await context.clearCookies({ name: "bc_locale" });
  await page.reload();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto(`${server.origin}/dashboard`);
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fdashboard/);
});
