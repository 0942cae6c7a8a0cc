import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { generateKeyPair, openJson } from "../lib/crypto/envelope";
import { db } from "../lib/db/client";
import { createClient } from "../lib/partners/clients";
import { createPartner } from "../lib/partners/partners";
import { connectJourneyDatabase } from "./support/database";
import {
  authorizePath,
  connectSandboxBank,
  exchangeCode,
  newPkce,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { partnerAppForSpec } from "./support/partner-app";
import { checkScreenWidths } from "./support/screen-check";
import { PNG } from "../test/images";
import { recordBankData, recordSecret } from "./support/secrets-seen";

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();

async function ownedPartner(options: { withKey?: boolean } = {}) {
  connectJourneyDatabase();
  const ownerEmail = uniqueEmail("owner");
  const partner = await createPartner({ name: "Plain Partner", ownerEmail });
  await db().partner.update({
    where: { id: partner.id },
    data: {
      registeredDomain: "acme.example",
      ...(options.withKey === false
        ? {}
        : {
            recipientPublicKey: generateKeyPair().publicKeyRawB64,
            recipientKeyInstalledAt: new Date(),
          }),
    },
  });
  const { client } = await createClient({
    partnerId: partner.id,
    redirectUris: [partnerApp().redirectUri],
  });
  const journeyClient = {
    clientId: client.id,
    clientSecret: "",
    redirectUri: partnerApp().redirectUri,
    partnerId: partner.id,
    recipientKey: null,
  };
  return { ownerEmail, journeyClient };
}

test("an owner edits every branding field, uploads a logo, and the consent screen shows it", async ({
  page,
  browser,
}) => {
  const { ownerEmail, journeyClient } = await ownedPartner();
  await page.goto("/dashboard");
  await signInByLink(page, ownerEmail);
  await expect(page).toHaveURL(/\/dashboard$/);

  // Refusals, each next to its field.
  await page.locator("#displayName").fill("x".repeat(81));
  await page.locator("#supportUrl").fill("http://acme.example/help");
  await page.locator("#termsUrl").fill("https://user:pw@acme.example/terms");
  await page.locator("#privacyUrl").fill("https://other.example/privacy");
  await page.locator("#accentColor").fill("green");
  await page.locator("#purpose").fill("p".repeat(281));
  await page.getByRole("button", { name: "Save branding" }).click();
  await expect(page.locator("#displayName-problem")).toHaveText(
    "Display name: at most 80 characters.",
  );
  await expect(page.locator("#supportUrl-problem")).toHaveText(
    "Support page: enter a full address starting with https://.",
  );
  await expect(page.locator("#termsUrl-problem")).toHaveText(
    "Terms of service: the address must not contain a user name or password.",
  );
  await expect(page.locator("#privacyUrl-problem")).toHaveText(
    "Privacy policy: the address must be under acme.example.",
  );
  await expect(page.locator("#accentColor-problem")).toHaveText(
    "Accent colour: enter # and six hex digits, e.g. #1d4ed8.",
  );
  await expect(page.locator("#purpose-problem")).toHaveText(
    "Why you ask for bank data: at most 280 characters.",
  );
  // A refused save says so as an error, not in the colour of "saved".
  const status = page.getByTestId("branding-status");
  await expect(status).toHaveText("Not saved: fix the marked fields.");
  await expect(status).toHaveAttribute("data-tone", "error");
  const colours = await page.evaluate(() => {
    const probe = document.createElement("span");
    document.body.append(probe);
    const of = (colour: string) => {
      probe.style.color = `var(${colour})`;
      return getComputedStyle(probe).color;
    };
    const result = { error: of("--error-line"), success: of("--success-ink") };
    probe.remove();
    return result;
  });
  await expect(status).toHaveCSS("color", colours.error);
  expect(colours.error).not.toBe(colours.success);
  await checkScreenWidths(page, "en-dashboard-branding-refused");
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.locator("#privacyUrl").fill("https://acme.example/privacy#top");
  await page.locator("#purpose").fill("two\nlines");
  await page.getByRole("button", { name: "Save branding" }).click();
  await expect(page.locator("#privacyUrl-problem")).toHaveText(
    "Privacy policy: the address must not contain a # part.",
  );
  await expect(page.locator("#purpose-problem")).toHaveText(
    "Why you ask for bank data: one line only.",
  );

  // A GIF and an SVG are refused; a PNG becomes the logo.
  await page.locator("#logoFile").setInputFiles({
    name: "logo.svg",
    mimeType: "image/svg+xml",
    buffer: Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>',
    ),
  });
  await expect(page.locator("#logo-problem")).toContainText("PNG, JPEG or WebP");
  await page.locator("#logoFile").setInputFiles({
    name: "logo.gif",
    mimeType: "image/gif",
    buffer: Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"),
  });
  await expect(page.locator("#logo-problem")).toContainText("PNG, JPEG or WebP");
  await page
    .locator("#logoFile")
    .setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PNG });
  await expect(page.getByTestId("logo-frame").locator("img")).toHaveAttribute(
    "src",
    /^\/logos\/[0-9a-f]{64}\.png$/,
  );
  await expect(page.getByTestId("branding-status")).toHaveText("Logo uploaded.");

  // Every field, valid this time; the preview follows as it is typed.
  await page.locator("#displayName").fill("Acme Budget Pro");
  await page.locator("#supportUrl").fill("https://acme.example/help");
  await page.locator("#termsUrl").fill("https://acme.example/terms");
  await page.locator("#privacyUrl").fill("https://www.acme.example/privacy");
  await page.locator("#accentColor").fill("#0a7d3b");
  await page.locator("#purpose").fill("We build your budget from your transactions.");
  await page.locator("#defaultLanguage").selectOption("en");
  const preview = page.getByTestId("preview");
  await expect(preview).toContainText("Acme Budget Pro");
  await expect(preview).toContainText("We build your budget from your transactions.");
  await expect(preview.locator("img.flow-logo")).toBeVisible();
  await page.getByRole("button", { name: "Save branding" }).click();
  await expect(page.getByTestId("branding-status")).toHaveText("Branding saved.");
  await expect(page.getByTestId("branding-status")).toHaveAttribute("data-tone", "success");

  // A user's flow through this partner shows the new branding on the consent screen.
  const context = await browser.newContext();
  const user = await context.newPage();
  await user.goto(authorizePath(journeyClient, newPkce().challenge));
  await signInByLink(user, uniqueEmail());
  await expect(user).toHaveURL(/\/consent$/);
  await expect(user.locator(".flow-partner")).toHaveText("Acme Budget Pro");
  await expect(user.locator("main")).toContainText("We build your budget from your transactions.");
  await expect(user.locator("img.flow-logo")).toHaveAttribute(
    "src",
    /^\/logos\/[0-9a-f]{64}\.png$/,
  );
  await expect(user.getByRole("link", { name: "Terms" })).toHaveAttribute(
    "href",
    "https://acme.example/terms",
  );
  const accent = await user
    .locator('form[action="/consent/approve"] button[type="submit"]')
    .evaluate((button) => getComputedStyle(button).backgroundColor);
  expect(accent).toBe("rgb(10, 125, 59)");
  await context.close();
});

test("the dashboard asks for sign-in and API keys get 403 on the partner API", async ({
  page,
  request,
}) => {
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login\?returnUrl=%2Fdashboard/);
  // The sign-in says it is the partner dashboard, and where a person's own data is managed.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Sign in to the partner dashboard",
  );
  await expect(page.locator("main")).toContainText("businesses that connect their app");
  const own = page.getByTestId("own-data");
  await expect(own).toHaveText("Looking for your own data? Manage your access");
  await expect(own.getByRole("link", { name: "Manage your access" })).toHaveAttribute(
    "href",
    "/account",
  );
  for (const locale of ["de", "fi", "en"]) {
    await page.context().addCookies([{ name: "bc_locale", value: locale, url: E2E_ORIGIN }]);
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("lang", locale);
    await checkScreenWidths(page, `${locale}-dashboard-sign-in`);
  }
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Sign in to the partner dashboard",
  );
  // The flow's own sign-in stays the flow's.
  await page.goto("/login?returnUrl=%2Faccount");
  await expect(page.getByTestId("own-data")).toHaveCount(0);
  await expect(page.getByRole("heading", { level: 1 })).not.toHaveText(
    "Sign in to the partner dashboard",
  );
  const response = await request.get("/api/partner/me", { headers: { "X-Api-Key": "ebk_nope" } });
  expect(response.status()).toBe(401);
});

test("an owner creates a client, rotates its secret and installs a decryption key made in the browser", async ({
  page,
  browser,
}) => {
  const { ownerEmail } = await ownedPartner({ withKey: false });
  await page.goto("/dashboard");
  await signInByLink(page, ownerEmail);
  await expect(page).toHaveURL(/\/dashboard$/);

  // A client: its secret is shown once.
  await page.locator("#new-name").fill("Budget web");
  await page.locator("#new-redirectUris").fill("http://example.com/callback");
  await page.getByRole("button", { name: "Create client" }).click();
  await expect(page.locator("#new-redirectUris-problem")).toHaveText(
    "Redirect URIs: http://example.com/callback may use http:// only on localhost; use https://.",
  );
  await page.locator("#new-redirectUris").fill(partnerApp().redirectUri);
  await page.getByRole("button", { name: "Create client" }).click();
  const secret = page.getByTestId("client-secret");
  await expect(secret).toHaveText(/^obs_/);
  const first = await secret.innerText();
  recordSecret("client secret", first);
  const clientId = await page.getByTestId("client-id").innerText();
  await expect(page.locator("#new-name")).toHaveValue("");
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(secret).toHaveCount(0);

  // Rotation: a new secret, the previous one's expiry shown.
  await page
    .getByRole("article", { name: "Budget web" })
    .getByRole("button", { name: "Rotate secret" })
    .click();
  await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
  await expect(secret).toHaveText(/^obs_/);
  const rotated = await secret.innerText();
  recordSecret("client secret", rotated);
  expect(rotated).not.toBe(first);
  await expect(page.getByText(/The previous secret works until/).first()).toBeVisible();

  // The security log shows the rotation just made, by this owner, and never a secret.
  const log = page.getByTestId("security-log");
  const rotation = log.getByRole("row").filter({ hasText: "Client secret rotated" });
  await expect(rotation).toHaveCount(1);
  await expect(rotation).toContainText(clientId);
  await expect(rotation).toContainText(ownerEmail);
  await expect(rotation).toContainText(/127\.0\.0\.1|::1/);
  const creation = log.getByRole("row").filter({ hasText: "Client created" });
  await expect(creation.filter({ hasText: clientId })).toContainText(ownerEmail);
  await expect(log).not.toContainText(first);
  await expect(log).not.toContainText(rotated);
  await page.getByLabel("Show").selectOption("client.secret_rotated");
  await expect(log.getByRole("row")).toHaveCount(2);
  await page.getByLabel("Show").selectOption("");

  // On a phone the log becomes a list of cards: nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(rotation).toBeVisible();
  await expect
    .poll(() =>
      page.evaluate(() =>
        [...document.querySelectorAll("main *")]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((element) => `${element.tagName} ${(element.textContent ?? "").slice(0, 40)}`),
      ),
    )
    .toEqual([]);
  await page.setViewportSize({ width: 1280, height: 720 });

  // The decryption key: generated here, the key file downloaded, installed through the challenge.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Generate a key in this browser" }).click();
  const keyFile = JSON.parse(await readFile(await (await download).path(), "utf8")) as {
    fingerprint: string;
    encryptionKey: { privateKey: string; publicKey: string };
  };
  recordSecret("private key", keyFile.encryptionKey.privateKey);
  await expect(page.getByTestId("key-fingerprint")).toHaveText(keyFile.fingerprint);
  connectJourneyDatabase();
  const partner = await db().partner.findFirstOrThrow({
    where: { owners: { some: { user: { email: ownerEmail } } } },
  });
  expect(partner.recipientPublicKey).toBe(keyFile.encryptionKey.publicKey);
  expect(partner.recipientKeyFingerprint).toBe(keyFile.fingerprint);

  // A flow started now relays empty key fields, and the data opens with the key file.
  const client = {
    clientId,
    clientSecret: rotated,
    redirectUri: partnerApp().redirectUri,
    partnerId: partner.id,
    recipientKey: null,
  };
  const context = await browser.newContext();
  const user = await context.newPage();
  const { verifier, challenge } = newPkce();
  const relay = partnerApp().nextRelay();
  await user.goto(authorizePath(client, challenge));
  await signInByLink(user, uniqueEmail());
  await user.locator('form[action="/consent/approve"] button[type="submit"]').click();
  await connectSandboxBank(user);
  const values = Object.fromEntries(await relay);
  expect(values).toMatchObject({ privateKey: "", publicKey: "" });
  const token = await exchangeCode(client, values.code ?? "", verifier);
  const accounts = await db().account.findMany({ where: { tenant: { subject: token.user } } });
  expect(accounts.length).toBeGreaterThan(0);
  for (const account of accounts) {
    const opened = openJson<{ iban: string }>(keyFile.encryptionKey.privateKey, account.enc ?? "");
    recordBankData(opened);
    expect(opened.iban).toMatch(/^[A-Z]{2}\d{2}/);
  }
  await context.close();
});

test("a client created after a refused try: the error goes and the client is listed at once", async ({
  page,
  context,
}) => {
  connectJourneyDatabase();
  const ownerEmail = uniqueEmail("owner");
  await createPartner({ name: "Fresh Partner", ownerEmail });
  await page.goto("/dashboard");
  await signInByLink(page, ownerEmail);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByText("No clients yet")).toBeVisible();

  await page.locator("#new-name").fill("Budget app");
  await page.locator("#new-redirectUris").fill("http://example.com/callback");
  await page.getByRole("button", { name: "Create client" }).click();
  const problem = page.locator("#new-redirectUris-problem");
  await expect(problem).toContainText("may use http:// only on localhost");
  await expect(page.locator("#new-redirectUris")).toHaveAttribute("aria-invalid", "true");

  // The list is read again after a create: however slow that is, nothing waits for it.
  await context.route("**/api/partner/clients", async (route) => {
    if (route.request().method() === "GET") await new Promise((done) => setTimeout(done, 8_000));
    await route.fallback();
  });
  await page.locator("#new-redirectUris").fill(partnerApp().redirectUri);
  await page.getByRole("button", { name: "Create client" }).click();
  const quick = { timeout: 3_000 };
  await expect(page.getByTestId("client-secret")).toHaveText(/^obs_/, quick);
  recordSecret("client secret", await page.getByTestId("client-secret").innerText());
  await expect(problem).toBeEmpty(quick);
  await expect(page.locator("#new-redirectUris")).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.locator('#clients [role="alert"]')).toHaveCount(0);
  await expect(page.getByText("No clients yet")).toHaveCount(0, quick);
  await expect(page.getByRole("article", { name: "Budget app" })).toBeVisible(quick);
  await expect(page.getByRole("button", { name: "Create client" })).toBeEnabled(quick);
  await checkScreenWidths(page, "en-dashboard-client-created");
  for (const locale of ["de", "fi"]) {
    await context.addCookies([{ name: "bc_locale", value: locale, url: E2E_ORIGIN }]);
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("lang", locale);
    await checkScreenWidths(page, `${locale}-dashboard-clients`);
  }
});
