import { expect, test, type Page } from "@playwright/test";
import { db } from "../lib/db/client";
import { createClient } from "../lib/partners/clients";
import { DEMO_PARTNER_NAME } from "../scripts/lib/seed";
import { expectAxeClean } from "./support/screen-check";
import { accountLines } from "./support/connected-banks";
import { connectJourneyDatabase } from "./support/database";
import {
  approveWithKey,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  exchangeCode,
  newPkce,
  PASSPHRASE,
  signInByCode,
  signInByLink,
  uniqueEmail,
  type JourneyClient,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { partnerAppForSpec } from "./support/partner-app";
import { recordSecret } from "./support/secrets-seen";

test.describe.configure({ timeout: 180_000 });

const partnerApp = partnerAppForSpec();

/** A new client of the seeded demo partner, whose secret this test knows. */
async function demoPartnerClient(): Promise<JourneyClient> {
  connectJourneyDatabase();
  const partner = await db().partner.findFirstOrThrow({ where: { name: DEMO_PARTNER_NAME } });
  const { client, clientSecret } = await createClient({
    partnerId: partner.id,
    redirectUris: [partnerApp().redirectUri],
  });
  recordSecret("client secret", clientSecret);
  return {
    clientId: client.id,
    clientSecret,
    redirectUri: partnerApp().redirectUri,
    partnerId: partner.id,
    recipientKey: null,
  };
}

/** The partner's API answer for `GET /api/accounts` with `key`. */
async function readAccounts(key: string) {
  const response = await fetch(`${E2E_ORIGIN}/api/accounts`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  const body = response.ok ? ((await response.json()) as { id: string }[]) : [];
  return { status: response.status, ids: body.map((account) => account.id) };
}

/** Goes through the flow of `client` in this tab (signed in, key unlocked) and returns the API key. */
async function grant(page: Page, client: JourneyClient, firstTime: { email: string } | null) {
  const { verifier, challenge } = newPkce();
  const relay = partnerApp().nextRelay();
  await page.goto(authorizePath(client, challenge));
  if (firstTime) {
    await signInByLink(page, firstTime.email);
    await createKey(page);
  }
  await connectSandboxBank(page);
  // The tab forgets the key once a relay is posted: a later grant asks for the passphrase.
  await approveWithKey(page, firstTime ? undefined : PASSPHRASE);
  const values = Object.fromEntries(await relay);
  // The relay's post lands at the partner before the browser shows its answer: let it finish.
  await page.waitForURL(partnerApp().redirectUri);
  return {
    key: (await exchangeCode(client, values.code ?? "", verifier)).access_token,
    privateKey: values.privateKey ?? "",
  };
}

test.describe("desktop", () => {
  test.use({ viewport: { width: 1280, height: 900 } });

  test("two partners granted: end one (401 at once, the other still reads), remove a bank, delete everything", async ({
    page,
  }) => {
    const email = uniqueEmail("portal");
    const demo = await demoPartnerClient();
    const second = await createJourneyClient(partnerApp().redirectUri, { name: "Second Ledger" });
    const { key: demoKey, privateKey } = await grant(page, demo, { email });
    const { key: secondKey } = await grant(page, second, null);
    expect((await readAccounts(demoKey)).status).toBe(200);
    expect((await readAccounts(secondKey)).status).toBe(200);

    await page.goto("/account");
    await expect(page.locator("h1")).toHaveText("My access");
    const access = page.getByTestId("access-item");
    await expect(access).toHaveCount(2);
    await expect(access.filter({ hasText: DEMO_PARTNER_NAME })).toBeVisible();
    await expect(access.filter({ hasText: "Second Ledger" })).toBeVisible();
    const banks = page.getByTestId("bank-item");
    await expect(banks).toHaveCount(2);
    // Account names are sealed: shown once the key is unlocked, opened in the browser.
    await expect(page.getByTestId("bank-account")).toHaveText(await accountLines({ email }, null));
    await expectAxeClean(page);
    await page.locator("#account-passphrase").fill(PASSPHRASE);
    await page.getByRole("button", { name: "Show account names" }).click();
    await expect(page.locator("#account-passphrase")).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByTestId("bank-account")).toHaveText(
      await accountLines({ email }, privateKey),
    );

    // End the second partner's access.
    const item = access.filter({ hasText: "Second Ledger" });
    await item.getByRole("button", { name: /End access/ }).click();
    await expect(item.getByText(/will no longer be able to read your accounts/)).toBeVisible();
    await expectAxeClean(page);
    await item.getByRole("button", { name: "End access now" }).click();
    await expect(page.getByRole("status")).toHaveText(
      "Second Ledger no longer has access to your bank data.",
    );
    expect((await readAccounts(secondKey)).status).toBe(401);
    const secondBank = banks.filter({ hasText: "Second Ledger" });
    await expect(secondBank.getByTestId("bank-status")).toHaveText("Access ended");
    await expect(secondBank).toContainText("Second Ledger no longer has access");
    const before = await readAccounts(demoKey);
    expect(before.status).toBe(200);
    expect(before.ids.length).toBeGreaterThan(0);

    // Remove the bank the demo partner reads.
    const demoBank = banks.filter({ hasText: `For ${DEMO_PARTNER_NAME}` });
    await demoBank.getByRole("button", { name: /^Remove/ }).click();
    await demoBank.getByRole("button", { name: "Remove bank" }).click();
    await expect(page.getByRole("status").last()).toHaveText(/was removed/);
    await expect(banks).toHaveCount(1);
    const after = await readAccounts(demoKey);
    expect(after).toEqual({ status: 200, ids: [] });
    connectJourneyDatabase();
    expect(await db().account.count({ where: { id: { in: before.ids } } })).toBe(0);
    expect(await db().balance.count({ where: { accountId: { in: before.ids } } })).toBe(0);
    expect(await db().transaction.count({ where: { accountId: { in: before.ids } } })).toBe(0);
    const user = await db().user.findUniqueOrThrow({ where: { email } });
    expect(
      await db().connection.count({
        where: { tenant: { userId: user.id, partnerId: demo.partnerId } },
      }),
    ).toBe(0);

    // Delete everything.
    await page.locator("#delete-confirm").fill(email);
    await page.getByRole("button", { name: "Delete everything" }).click();
    await expect(page).toHaveURL(/\/account\/deleted\?/);
    await expect(page.locator("h1")).toHaveText("Everything is deleted");
    await expect(page.getByRole("link", { name: "Return to Second Ledger" })).toHaveAttribute(
      "href",
      new URL(partnerApp().redirectUri).origin,
    );
    expect((await readAccounts(demoKey)).status).toBe(401);
    expect(await db().user.findUnique({ where: { email } })).toBeNull();
    expect(await db().tenant.count({ where: { userId: user.id } })).toBe(0);
    await page.goto("/account");
    await expect(page).toHaveURL(/\/login\?returnUrl=%2Faccount/);
  });
});

test.describe("phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("signed out: the flow's sign-in comes first and leads back to /account", async ({
    page,
  }) => {
    const email = uniqueEmail("phone");
    // One sign-in mail only: an address gets one a minute.
    await page.goto("/account");
    await expect(page).toHaveURL(/\/login\?returnUrl=%2Faccount/);
    await signInByCode(page, email);
    await expect(page).toHaveURL(/\/account$/);
    await expect(page.getByText("No application can read your bank data.")).toBeVisible();

    const client = await createJourneyClient(partnerApp().redirectUri, {
      recipientKey: true,
      name: "Pocket Budget",
    });
    const { verifier, challenge } = newPkce();
    const relay = partnerApp().nextRelay();
    await page.goto(authorizePath(client, challenge));
    await expect(page).toHaveURL(/\/consent$/);
    await expect(page.getByRole("link", { name: "My access" })).toHaveAttribute("href", "/account");
    await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
    await connectSandboxBank(page);
    const values = Object.fromEntries(await relay);
    const key = (await exchangeCode(client, values.code ?? "", verifier)).access_token;
    // The relay's post lands at the partner before the browser shows its answer: let it finish.
    await page.waitForURL(partnerApp().redirectUri);

    await page.goto("/account");
    await expect(page.getByTestId("access-item")).toHaveText(/Pocket Budget/);
    await expect(page.getByTestId("bank-item")).toHaveCount(1);
    // No horizontal scrolling on a phone.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await expectAxeClean(page);

    await page.getByRole("button", { name: /End access/ }).click();
    await page.getByRole("button", { name: "End access now" }).click();
    await expect(page.getByRole("status")).toHaveText(/no longer has access/);
    expect((await readAccounts(key)).status).toBe(401);
  });
});
