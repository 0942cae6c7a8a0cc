import { expect, test, type Page, type Request } from "@playwright/test";
import { openJson } from "../lib/crypto/envelope";
import { db } from "../lib/db/client";
import { parsePasskeyWrappedKey } from "../lib/keys/passkey-key";
import { connectJourneyDatabase } from "./support/database";
import {
  approveWithKey,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  exchangeCode,
  newPkce,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { partnerAppForSpec } from "./support/partner-app";
import {
  addVirtualAuthenticator,
  storedKeyRecord,
  toCredentialId,
  type VirtualAuthenticator,
} from "./support/passkeys";
import { checkScreenWidths } from "./support/screen-check";
import { recordBankData } from "./support/secrets-seen";

/**
 * A first-time person keeps their key in a passkey (docs/key-model.md): the
 * mail signs them in, one tap in the key step makes the key, a passkey (with
 * a virtual authenticator standing for their phone) and the key wrapped with
 * the passkey's PRF output; then the bank and "Allow access", with no
 * passphrase and no file. The partner opens the relayed data with the key.
 */

test.describe.configure({ timeout: 180_000 });

const partnerApp = partnerAppForSpec();

/** What the browser posted to register a passkey. */
function registrations(page: Page): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  page.on("request", (request: Request) => {
    if (request.method() === "POST" && new URL(request.url()).pathname === "/passkeys/register") {
      seen.push(request.postDataJSON() as Record<string, unknown>);
    }
  });
  return seen;
}

/** Every account of the tenant opens with `privateKey`. */
async function expectAccountsOpenWith(subject: string, privateKey: string) {
  connectJourneyDatabase();
  const accounts = await db().account.findMany({ where: { tenant: { subject } } });
  expect(accounts.length).toBeGreaterThan(0);
  for (const account of accounts) {
    const details = openJson<{ iban: string }>(privateKey, account.enc ?? "");
    recordBankData(details);
    expect(details.iban).toMatch(/^[A-Z]{2}\d{2}[A-Z0-9]+$/);
  }
}

async function passkeysOf(email: string) {
  connectJourneyDatabase();
  const user = await db().user.findUniqueOrThrow({
    where: { email },
    include: { passkeys: true },
  });
  return { user, passkeys: user.passkeys };
}

test("first time: mail, one tap keeps the key in a passkey, bank, allow; the partner opens the data", async ({
  page,
}) => {
  const authenticator: VirtualAuthenticator = await addVirtualAuthenticator(page);
  const posted = registrations(page);
  const client = await createJourneyClient(partnerApp().redirectUri);
  const { verifier, challenge } = newPkce();
  const email = uniqueEmail("passkey");
  const relay = partnerApp().nextRelay();

  await page.goto(authorizePath(client, challenge, { state: "st-passkey" }));
  // The passkey button is there, below the mail form, which still works as before.
  await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeVisible();
  await expect(page.locator("#email")).toHaveAttribute("autocomplete", "username webauthn");
  await signInByLink(page, email);

  // The key step: the passkey first, the passphrase offered.
  await expect(page).toHaveURL(/\/setup$/);
  const create = page.getByRole("button", { name: "Create a passkey" });
  await expect(create).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole("button", { name: "Use a passphrase instead" })).toBeVisible();
  await expect(page.locator("#passphrase")).toHaveCount(0);
  await create.click();

  // Straight on to the bank: no passphrase, no backup file; the key step is done.
  await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
  await expect(page.locator(".steps-count")).toContainText("Step 3 of 4");
  const { user, passkeys } = await passkeysOf(email);
  expect(user.publicKey).toBeTruthy();
  // No backup file was made: none is counted as saved.
  expect(user.keyBackupAt).toBeNull();
  expect(passkeys).toHaveLength(1);
  const [passkey] = passkeys;
  expect(parsePasskeyWrappedKey(passkey?.wrappedKey ?? "").publicKey).toBe(user.publicKey);

  // The authenticator keeps one discoverable passkey for this service, the one registered.
  const credentials = await authenticator.credentials();
  expect(credentials).toHaveLength(1);
  expect(credentials[0]?.isResidentCredential).toBe(true);
  expect(credentials[0]?.rpId).toBe(new URL(E2E_ORIGIN).hostname);
  expect(toCredentialId(credentials[0]?.credentialId ?? "")).toBe(passkey?.credentialId);

  // The PRF output never left the page: the registration says PRF is on, and nothing more.
  expect(posted).toHaveLength(1);
  const response = posted[0]?.response as { clientExtensionResults: Record<string, unknown> };
  expect(JSON.stringify(response.clientExtensionResults)).not.toContain("results");
  expect(posted[0]?.wrappedKey).toBe(passkey?.wrappedKey);

  // This browser keeps the key as held by the passkey, wrapped the same way.
  const stored = (await storedKeyRecord(page, user.id)) as {
    format: string;
    publicKey: string;
    passkeys: { credentialId: string }[];
    backup: unknown;
  };
  expect(stored.format).toBe("bank-connect-passkey-key");
  expect(stored.publicKey).toBe(user.publicKey);
  expect(stored.passkeys.map((held) => held.credentialId)).toEqual([passkey?.credentialId]);
  expect(stored.backup).toBeNull();

  await connectSandboxBank(page);
  // The tab that made the key holds it unlocked: allowing is one tap.
  await approveWithKey(page);

  const fields = await relay;
  expect(fields.map(([name]) => name)).toEqual(["code", "state", "iss", "privateKey", "publicKey"]);
  const values = Object.fromEntries(fields);
  expect(values.state).toBe("st-passkey");
  expect(values.publicKey).toBe(user.publicKey);
  const token = await exchangeCode(client, values.code ?? "", verifier);
  await expectAccountsOpenWith(token.user, values.privateKey ?? "");
});

test("no PRF: the passkey stays for signing in and the key step goes on with a passphrase", async ({
  page,
}) => {
  await addVirtualAuthenticator(page, { prf: false });
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail("passkey-no-prf");

  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, email);
  await page.getByRole("button", { name: "Create a passkey" }).click();
  await expect(page.locator(".notice")).toContainText("cannot keep your key in it");
  await expect(page.locator("#passphrase")).toBeVisible();
  await expect(page.locator("#passphrase")).toBeFocused();
  // No way back to a passkey that cannot hold the key.
  await expect(page.getByRole("button", { name: /in a passkey instead/ })).toHaveCount(0);
  const { user, passkeys } = await passkeysOf(email);
  expect(user.publicKey).toBeNull();
  expect(passkeys).toHaveLength(1);
  expect(passkeys[0]?.wrappedKey).toBeNull();
});

test("a closed passkey sheet keeps the key step, says so, and lets the person try again", async ({
  page,
}) => {
  const authenticator = await addVirtualAuthenticator(page);
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail("passkey-closed");

  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, email);
  const create = page.getByRole("button", { name: "Create a passkey" });
  await expect(create).toBeVisible({ timeout: 30_000 });
  // The person does not confirm with their face or fingerprint.
  await authenticator.setUserVerified(false);
  await create.click();
  const alert = page.locator("main [role=alert]");
  await expect(alert).toContainText("No passkey was created");
  await expect(alert).toBeFocused();
  await expect(page).toHaveURL(/\/setup$/);
  expect((await passkeysOf(email)).passkeys).toHaveLength(0);
  expect((await passkeysOf(email)).user.publicKey).toBeNull();

  await authenticator.renew();
  await create.click();
  await expect(page).toHaveURL(/\/banks/, { timeout: 30_000 });
  expect((await passkeysOf(email)).passkeys).toHaveLength(1);
});

for (const locale of ["en", "de", "fi"] as const) {
  test(`the passkey screens at 390 and 1280 px in ${locale}`, async ({ browser }) => {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    await addVirtualAuthenticator(page);
    const client = await createJourneyClient(partnerApp().redirectUri);
    const email = uniqueEmail("passkey-screens");

    await page.goto(authorizePath(client, newPkce().challenge, { ui_locales: locale }));
    await expect(page.locator(".passkey-sign-in button")).toBeVisible();
    await checkScreenWidths(page, `passkey-${locale}-login`);
    await signInByLink(page, email);
    await expect(page.locator(".passkey-points")).toBeVisible({ timeout: 30_000 });
    await checkScreenWidths(page, `passkey-${locale}-setup`);
    await context.close();
  });
}
