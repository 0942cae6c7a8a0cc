import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { rawSetting } from "../lib/env";
import { signInByLink, uniqueEmail } from "./support/journey";
import { startSecondServer, type SecondServer } from "./support/second-server";

/**
 * Partner sign-up switched off (PARTNER_SELF_SIGNUP=false, the production
 * default; docs/partner-signup.md): a second instance of the service with that
 * setting, on the journeys' build and database. A signed-in person who owns no
 * partner is told that the operator adds them, with the address they signed in
 * with and the command, and can sign out.
 */

test.describe.configure({ timeout: 240_000 });

const SHOTS = rawSetting("SHOTS_DIR");
let server: SecondServer;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = await startSecondServer({ PARTNER_SELF_SIGNUP: "false" }, 1);
});

test.afterAll(async () => {
  await server?.stop();
});

/** Nothing scrolls sideways and axe finds nothing, at a phone's and a desktop's width. */
async function checkScreen(page: Page, name: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.map((v) => `${width}: ${v.id}`)).toEqual([]);
    if (SHOTS) {
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
  }
}

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
  await checkScreen(page, "signup-closed-en");

  await context.addCookies([{ name: "bc_locale", value: "de", url: server.origin }]);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Bitten Sie den Betreiber, Sie hinzuzufügen",
  );
  await checkScreen(page, "signup-closed-de");
  await context.clearCookies({ name: "bc_locale" });
  await page.reload();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto(`${server.origin}/dashboard`);
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fdashboard/);
});
