import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import {
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  newPkce,
  PASSPHRASE,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();

async function createKeyOnly(page: import("@playwright/test").Page) {
  await expect(page).toHaveURL(/\/setup$/);
  await page.locator("#passphrase").fill(PASSPHRASE);
  await page.locator("#confirm").fill(PASSPHRASE);
  await page.locator('form button.button[type="submit"]').click();
  await expect(page.locator("a[download]")).toBeVisible({ timeout: 30_000 });
}

test("reproduction: a reload right after creating the key keeps the backup on offer", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, uniqueEmail());
  await createKeyOnly(page);
  await page.reload();
  await expect(page.locator("a[download]")).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('input[type="file"]')).toHaveCount(0);
});

test("reproduction: setup cannot be left without confirming the backup", async ({ page }) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, uniqueEmail());
  await createKeyOnly(page);
  await page
    .getByRole("link", { name: "Continue" })
    .or(page.getByRole("button", { name: "Continue" }))
    .click();
  await expect(page).toHaveURL(/\/setup$/);
});

test("reproduction: the backup file is encrypted and says what it is", async ({ page }) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, uniqueEmail());
  await createKeyOnly(page);
  const download = page.waitForEvent("download");
  await page.locator("a[download]").click();
  const text = readFileSync((await (await download).path()) ?? "", "utf8");
  expect(text).not.toMatch(/MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/);
  expect(JSON.parse(text)).toMatchObject({ service: "Bank Connect" });
});

test("reproduction: consent in the same tab does not ask for the passphrase again", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, uniqueEmail());
  await createKeyOnly(page);
  await page.locator("a.button").click();
  await connectSandboxBank(page);
  await expect(page).toHaveURL(/\/consent$/);
  await expect(page.getByRole("button", { name: "Allow access" })).toBeVisible();
  await expect(page.locator("#passphrase")).toHaveCount(0);
});
