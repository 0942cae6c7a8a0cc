import { expect, test } from "@playwright/test";
import { PNG } from "../test/images";
import { signInByLink, uniqueEmail } from "./support/journey";
import { checkScreenWidths } from "./support/screen-check";
import { recordSecret } from "./support/secrets-seen";

test.describe.configure({ timeout: 180_000 });

test("a new person signs up a partner, brands it, creates a client and installs and replaces a key", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const email = uniqueEmail("newcomer");
  const name = `Newcomer ${Date.now().toString(36)}`;
  await page.goto("/dashboard");
  await signInByLink(page, email);
  await expect(page.getByRole("heading", { name: "Create your partner" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await checkScreenWidths(page, "dashboard-signup-1");

  // An empty name is named next to the field; a real one creates the partner.
  await page.getByRole("button", { name: "Create partner" }).click();
  await expect(page.locator("#partner-name-problem")).toHaveText("Partner name: fill this in.");
  await page.getByLabel("Partner name").fill(name);
  await page.getByRole("button", { name: "Create partner" }).click();
  await expect(page.getByText(`Partner: ${name}`)).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  await checkScreenWidths(page, "dashboard-signup-2");

  // The logo is shown as the image, not as an address.
  await page
    .locator("#logoFile")
    .setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PNG });
  await expect(page.getByTestId("branding-status")).toHaveText("Logo uploaded.");
  await expect(page.getByTestId("logo-frame").locator("img")).toHaveAttribute("src", /^\/logos\//);
  await expect(page.getByRole("button", { name: "Replace logo" })).toBeVisible();

  // A client: its secret is shown once next to the create button, with a copy button.
  await page.locator("#new-name").fill("Newcomer web");
  await page.locator("#new-redirectUris").fill("https://newcomer.example/callback");
  await page.getByRole("button", { name: "Create client" }).click();
  const secret = page.getByTestId("client-secret");
  await expect(secret).toHaveText(/^obs_/);
  const first = await secret.innerText();
  recordSecret("client secret", first);
  await expect(page.getByText(/Shown only once/)).toBeVisible();
  await expect(page.locator("#new-name")).toHaveValue("");
  await page.getByRole("button", { name: "Copy Client secret" }).click();
  await expect(
    page.getByRole("button", { name: "Client secret copied to the clipboard" }),
  ).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);
  await checkScreenWidths(page, "dashboard-signup-3");
  await page.getByRole("button", { name: "I have stored it" }).click();

  // Rotation waits for the confirmation; cancelling changes nothing.
  const card = page.getByRole("article", { name: "Newcomer web" });
  await card.getByRole("button", { name: "Rotate secret" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("keeps working for 24 hours");
  await checkScreenWidths(page, "dashboard-signup-4");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(secret).toHaveCount(0);
  await card.getByRole("button", { name: "Rotate secret" }).click();
  await dialog.getByRole("button", { name: "Rotate secret" }).click();
  await expect(card.getByTestId("client-secret")).toHaveText(/^obs_/);
  const rotated = await card.getByTestId("client-secret").innerText();
  recordSecret("client secret", rotated);
  expect(rotated).not.toBe(first);
  await card.getByRole("button", { name: "I have stored it" }).click();

  // A first key needs no confirmation; its fingerprint and install date are shown.
  const firstDownload = page.waitForEvent("download");
  await page.getByRole("button", { name: "Generate a key in this browser" }).click();
  const firstFile = await (await firstDownload).suggestedFilename();
  const fingerprint = page.getByTestId("key-fingerprint");
  await expect(fingerprint).toHaveText(/^[0-9a-f]{16}$/);
  const installed = await fingerprint.innerText();
  expect(firstFile).toBe(`recipient-key-${installed}.json`);
  await expect(page.getByTestId("installed-key")).toContainText("Installed");

  // Replacing it: the consequence explained, a wrong name refused, cancel keeps the old key.
  await page.getByRole("button", { name: "Generate a new key" }).click();
  await expect(dialog).toContainText("sealed to the new key");
  await expect(dialog).toContainText(installed);
  await expect(
    dialog.getByRole("link", { name: /replace the key without losing users/ }),
  ).toHaveAttribute("href", "/docs/key-rotation");
  const confirmName = dialog.getByLabel(`Type the partner name ${name} to confirm`);
  await confirmName.fill("Someone Else");
  await expect(dialog.getByRole("button", { name: "Replace the key" })).toBeDisabled();
  await checkScreenWidths(page, "dashboard-signup-5");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(fingerprint).toHaveText(installed);

  await page.getByRole("button", { name: "Generate a new key" }).click();
  await confirmName.fill(name);
  const secondDownload = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Replace the key" }).click();
  await secondDownload;
  await expect(fingerprint).not.toHaveText(installed);
  await expect(fingerprint).toHaveText(/^[0-9a-f]{16}$/);

  // Sign-out from the dashboard.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
});
