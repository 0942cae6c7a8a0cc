import { readFile } from "node:fs/promises";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { createTranslator } from "next-intl";
import { passkeyName } from "../app/(flow)/_lib/passkey-name";
import { ensureTenant } from "../lib/banking/tenants";
import { generateKeyPair } from "../lib/crypto/envelope";
import { db } from "../lib/db/client";
import type { Locale } from "../lib/i18n/locales";
import { loadMessages } from "../lib/i18n/messages";
import { createKeyBackup, type KeyBackup } from "../lib/keys/key-backup";
import { connectBank } from "../test/bank-data";
import { accountLines } from "./support/connected-banks";
import { connectJourneyDatabase } from "./support/database";
import { addSessionCookie, PASSPHRASE, uniqueEmail } from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { addVirtualAuthenticator, storedKeyRecord } from "./support/passkeys";
import { checkScreenWidths } from "./support/screen-check";
import { recordSecret } from "./support/secrets-seen";

/**
 * Passkeys on My access (docs/account.md#passkeys), in Chromium with virtual
 * authenticators over the DevTools protocol (user verification, resident
 * keys and PRF, as a phone's or a password manager's passkeys): the list,
 * adding a second passkey that holds the key too, removing one, and the last
 * passkey holding the key refused until a backup file is saved, with the
 * file offered on the spot. A new device unlocks the key with a synced
 * passkey and makes its own backup file.
 */

test.describe.configure({ timeout: 180_000 });

/**
 * The person's authenticator: the journeys' shared virtual authenticator
 * (e2e/support/passkeys.ts: verifies the person, keeps discoverable passkeys,
 * PRF unless `prf` is false); `synced` gives one whose passkeys are backup
 * eligible and backed up, as iCloud Keychain's or Google Password Manager's
 * are, which the shared helper has no option for.
 */
async function addAuthenticator(
  page: Page,
  { synced, prf = true }: { synced: boolean; prf?: boolean },
): Promise<{ remove(): Promise<void> }> {
  if (!synced) return addVirtualAuthenticator(page, { prf });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const options = {
    protocol: "ctap2",
    ctap2Version: "ctap2_1",
    transport: "internal",
    hasResidentKey: true,
    hasUserVerification: true,
    isUserVerified: true,
    hasPrf: prf,
    automaticPresenceSimulation: true,
    defaultBackupEligibility: true,
    defaultBackupState: true,
  } as const;
  const { authenticatorId } = (await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: options as never,
  })) as { authenticatorId: string };
  return {
    remove: async () => {
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
    },
  };
}

/**
 * A person with a registered key and no backup file confirmed yet, signed in
 * in a new browser (`locale`) that keeps the key's encrypted backup, as after
 * setting it up here with a passphrase.
 */
async function personWithKey(browser: Browser, locale = "en") {
  connectJourneyDatabase();
  const keys = generateKeyPair();
  recordSecret("private key", keys.privateKeyPkcs8B64);
  recordSecret("passphrase", PASSPHRASE);
  const email = uniqueEmail("passkeys");
  const user = await db().user.create({
    data: { email, publicKey: keys.publicKeyRawB64, publicKeyAt: new Date(), keyBackupAt: null },
  });
  const backup = await createKeyBackup({
    pair: { privateKey: keys.privateKeyPkcs8B64, publicKey: keys.publicKeyRawB64 },
    passphrase: PASSPHRASE,
    account: email,
    apiBaseUrl: E2E_ORIGIN,
    readme: "Backup of the journey's key",
  });
  const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
  await addSessionCookie(context, user.id);
  const page = await context.newPage();
  await page.goto("/account");
  // The page looks for the key in its database (making it): keep the backup in it.
  await expect(page.locator("#passkeys-title")).toBeVisible();
  await keepInBrowser(page, user.id, backup);
  await page.reload();
  return { user, keys, backup, context, page };
}

async function keepInBrowser(page: Page, userId: string, backup: KeyBackup) {
  // The page makes its key database when its script runs, which may be after the heading
  // shows on a busy machine: wait for it, or the store below would not exist yet.
  await expect
    .poll(() =>
      page.evaluate(async () =>
        (await indexedDB.databases()).some((found) => found.name === "bank-connect"),
      ),
    )
    .toBe(true);
  await page.evaluate(
    ({ userId, backup }) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open("bank-connect");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          if (!open.result.objectStoreNames.contains("keys")) {
            open.result.close();
            return reject(new Error("the page's key database has no keys store"));
          }
          const tx = open.result.transaction("keys", "readwrite");
          tx.objectStore("keys").put(backup, userId);
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    { userId, backup },
  );
}

/** Everything the service's pages keep in this browser: its key database and storages. */
async function forgetThisBrowser(page: Page) {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        sessionStorage.clear();
        localStorage.clear();
        const deleted = indexedDB.deleteDatabase("bank-connect");
        deleted.onsuccess = deleted.onerror = deleted.onblocked = () => resolve();
      }),
  );
}

/** The panel's "added, and it holds your key" sentence in `locale`, formatted as the page does. */
async function addedHoldsText(locale: Locale, name: string): Promise<string> {
  const messages = await loadMessages(locale);
  return createTranslator({ locale, messages, namespace: "Account.passkeys" })("addedHolds", {
    name,
  });
}

/** "Remove", followed (for screen readers) by the passkey's name. */
const REMOVE = /^Remove\s*:/;

const passkeysOf = (userId: string) =>
  db().passkey.findMany({ where: { userId }, orderBy: { createdAt: "asc" } });

const wrappedPublicKey = (wrappedKey: string | null) =>
  wrappedKey ? (JSON.parse(wrappedKey) as { publicKey: string }).publicKey : null;

async function downloadBackupFile(page: Page, scope: string): Promise<KeyBackup> {
  const link = page.locator(`${scope} a[download="bank-connect-key-backup.json"]`);
  const download = page.waitForEvent("download");
  await link.click();
  return JSON.parse(await readFile(await (await download).path(), "utf8")) as KeyBackup;
}

test("list, add a second passkey, remove one; the last holder of the key is refused until a backup file is saved", async ({
  browser,
}) => {
  const { user, keys, context, page } = await personWithKey(browser);
  const name = passkeyName(await page.evaluate(() => navigator.userAgent));
  const panel = page.locator("section.passkeys");
  const items = panel.getByTestId("passkey-item");

  // None yet: the page says so and recommends the backup file, which this browser keeps.
  await expect(panel.getByTestId("passkeys-none")).toHaveText(
    "You have no passkey yet. With one, you sign in with a tap instead of a code by email.",
  );
  await expect(panel.getByTestId("passkey-backup")).toContainText(
    "Recommended: save a backup file.",
  );
  await checkScreenWidths(page, "en-account-passkeys-none");

  // The first passkey, on this device: the key's passphrase lets it hold the key too.
  const phone = await addAuthenticator(page, { synced: false });
  await page.locator("#passkey-passphrase").fill(PASSPHRASE);
  await panel.getByRole("button", { name: "Add a passkey" }).click();
  await expect(panel.getByRole("status")).toHaveText(
    `The passkey ${name} was added. It signs you in and holds your key.`,
  );
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText(name);
  await expect(items.first().getByTestId("passkey-holds-key")).toHaveText("Holds your key");
  await expect(items.first().getByTestId("passkey-kind")).toHaveText("This device only");
  await expect(items.first()).toContainText("Not used yet");
  // This browser now opens the key with a tap on it, the passphrase backup kept beside.
  const kept = (await storedKeyRecord(page, user.id)) as {
    format: string;
    passkeys: { credentialId: string }[];
    backup: { publicKey: string } | null;
  };
  expect(kept.format).toBe("bank-connect-passkey-key");
  expect(kept.passkeys.map((held) => held.credentialId)).toEqual(
    (await passkeysOf(user.id)).map((passkey) => passkey.credentialId),
  );
  expect(kept.backup?.publicKey).toBe(keys.publicKeyRawB64);

  // A second one, synced across devices (another authenticator): the key, unlocked in this tab
  // since, is wrapped for it without asking again.
  await phone.remove();
  await addAuthenticator(page, { synced: true });
  await expect(page.locator("#passkey-passphrase")).toHaveCount(0);
  await panel.getByRole("button", { name: "Add a passkey" }).click();
  await expect(panel.getByRole("status")).toHaveText(
    `The passkey ${name} was added. It signs you in and holds your key.`,
  );
  await expect(items).toHaveCount(2);
  // Newest first, as the big platforms list them.
  await expect(items.nth(0).getByTestId("passkey-kind")).toHaveText("Synced across your devices");
  await expect(items.nth(1).getByTestId("passkey-kind")).toHaveText("This device only");
  await expect(panel.getByTestId("passkey-holds-key")).toHaveCount(2);
  const stored = await passkeysOf(user.id);
  expect(stored.map((passkey) => passkey.deviceType)).toEqual(["singleDevice", "multiDevice"]);
  // The service keeps only the wrapped key, for the person's own key; never the key itself.
  expect(stored.map((passkey) => wrappedPublicKey(passkey.wrappedKey))).toEqual([
    keys.publicKeyRawB64,
    keys.publicKeyRawB64,
  ]);
  for (const passkey of stored) {
    expect(passkey.wrappedKey).not.toContain(keys.privateKeyPkcs8B64.slice(40, 80));
  }
  await checkScreenWidths(page, "en-account-passkeys-two");

  // Removing the device-bound one (a lost phone): asked once more, then gone.
  const deviceOnly = items.filter({ hasText: "This device only" });
  await deviceOnly.getByRole("button", { name: REMOVE }).click();
  await expect(deviceOnly.getByRole("group")).toContainText(`Remove ${name}?`);
  await expect(deviceOnly.getByRole("group")).toContainText("This passkey holds your key.");
  await deviceOnly.getByRole("button", { name: "Remove passkey" }).click();
  await expect(panel.getByRole("status")).toHaveText(`The passkey ${name} was removed.`);
  await expect(items).toHaveCount(1);
  expect((await passkeysOf(user.id)).map((passkey) => passkey.deviceType)).toEqual(["multiDevice"]);

  // The last passkey holding the key, and no backup file saved: the service refuses (409
  // last_key_holder) and the page says why, with the backup file right there.
  const last = items.first();
  const refusal = page.waitForResponse(
    (response) =>
      response.request().method() === "DELETE" && response.url().includes("/account/passkeys/"),
  );
  await last.getByRole("button", { name: REMOVE }).click();
  await last.getByRole("button", { name: "Remove passkey" }).click();
  expect((await refusal).status()).toBe(409);
  const holder = last.getByTestId("last-key-holder");
  await expect(holder.getByRole("heading")).toHaveText(
    "This passkey is the only way back to your key",
  );
  await expect(holder.getByRole("heading")).toBeFocused();
  await expect(holder).toContainText("Save a backup file first");
  await expect(holder.getByRole("link", { name: "Start over with a new key" })).toHaveAttribute(
    "href",
    "/account?key=start-over",
  );
  await expect(panel.getByTestId("passkey-backup")).toContainText("Make the backup file above");
  expect(await passkeysOf(user.id)).toHaveLength(1);
  await checkScreenWidths(page, "en-account-passkeys-last-holder");

  // The backup file: the key's own, still locked with its passphrase; then "I saved it".
  const file = await downloadBackupFile(page, '[data-testid="last-key-holder"]');
  expect(file.format).toBe("bank-connect-key-backup");
  expect(file.publicKey).toBe(keys.publicKeyRawB64);
  expect(JSON.stringify(file)).not.toContain(keys.privateKeyPkcs8B64.slice(40, 80));
  await holder.getByLabel("I saved the backup file").check();
  await holder.getByRole("button", { name: "Confirm" }).click();
  await expect(panel.getByRole("status")).toHaveText(
    "Thank you. Your backup file is your second way back to your key.",
  );
  const saved = await db().user.findUniqueOrThrow({ where: { id: user.id } });
  expect(saved.keyBackupAt).not.toBeNull();
  await expect(panel.getByTestId("passkey-backup")).toContainText("You saved a backup file on");

  // Now it may go.
  await expect(holder).toContainText("Your backup file is saved. You can remove the passkey now.");
  await holder.getByRole("button", { name: "Remove passkey" }).click();
  await expect(panel.getByRole("status")).toHaveText(`The passkey ${name} was removed.`);
  await expect(panel.getByTestId("passkeys-none")).toBeVisible();
  expect(await passkeysOf(user.id)).toHaveLength(0);
  await context.close();
});

test("a new device: a synced passkey brings the key, and a backup file is made with a new passphrase", async ({
  browser,
}) => {
  const { user, keys, context, page } = await personWithKey(browser);
  // A bank connected earlier, its account names sealed to the person's key.
  const tenant = await db().$transaction((tx) => ensureTenant(tx, { partner: null, user }));
  await connectBank(tenant.id, keys.publicKeyRawB64);
  const panel = page.locator("section.passkeys");
  await addAuthenticator(page, { synced: true });
  await page.locator("#passkey-passphrase").fill(PASSPHRASE);
  await panel.getByRole("button", { name: "Add a passkey" }).click();
  await expect(panel.getByTestId("passkey-holds-key")).toHaveCount(1);

  // The same synced passkey on a browser that keeps nothing of the service's.
  await forgetThisBrowser(page);
  await page.reload();
  const backup = panel.getByTestId("passkey-backup");
  await expect(backup).toContainText(
    "Unlock your key with a passkey that holds it, then choose a passphrase for the file.",
  );
  await checkScreenWidths(page, "en-account-passkeys-new-device");
  await backup.getByRole("button", { name: "Unlock with a passkey" }).click();

  // Unlocked with a tap (a passkey sign-in: the page comes again, for the new session), no
  // file, no passphrase. The new file gets a passphrase of its own, asked for at once.
  const passphrase = "lantern orbit velvet meadow";
  recordSecret("passphrase", passphrase);
  await expect(backup.getByLabel("Passphrase", { exact: true })).toBeFocused();
  await backup.getByLabel("Passphrase", { exact: true }).fill(passphrase);
  await backup.getByLabel("Repeat the passphrase").fill(passphrase);
  await backup.getByRole("button", { name: "Make the backup file" }).click();
  await expect(backup).toContainText("Your backup file is ready.");
  const file = await downloadBackupFile(page, '[data-testid="passkey-backup"]');
  expect(file.publicKey).toBe(keys.publicKeyRawB64);
  await backup.getByLabel("I saved the backup file").check();
  await backup.getByRole("button", { name: "Confirm" }).click();
  await expect(backup).toContainText("You saved a backup file on");
  expect(
    (await db().user.findUniqueOrThrow({ where: { id: user.id } })).keyBackupAt,
  ).not.toBeNull();

  // The passkey was used (the sign-in that brought the key).
  await page.reload();
  await expect(panel.getByTestId("passkey-item").first()).toContainText("Last used");

  // Another visit (the tab's unlock gone): the key this browser now keeps opens with a tap
  // only, so the account names ask for the passkey, not a passphrase.
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  const banks = page.locator('section[aria-labelledby="banks-title"]');
  await expect(banks).toContainText(
    "The account names are encrypted with your key. Unlock it with your passkey to see them here; they never reach the server.",
  );
  await expect(banks.locator("#account-passphrase")).toHaveCount(0);
  await expect(page.getByTestId("bank-account")).toHaveText(
    await accountLines({ id: user.id }, null),
  );
  await banks.getByRole("button", { name: "Show account names" }).click();
  await expect(page.getByTestId("bank-account")).toHaveText(
    await accountLines({ id: user.id }, keys.privateKeyPkcs8B64),
  );
  await context.close();
});

test("an authenticator without PRF adds a passkey for sign-in only; the passphrase stays the way to the key", async ({
  browser,
}) => {
  const { user, context, page } = await personWithKey(browser);
  const name = passkeyName(await page.evaluate(() => navigator.userAgent));
  const panel = page.locator("section.passkeys");
  await addAuthenticator(page, { synced: false, prf: false });
  await page.locator("#passkey-passphrase").fill(PASSPHRASE);
  await panel.getByRole("button", { name: "Add a passkey" }).click();
  await expect(panel.getByRole("status")).toHaveText(
    `The passkey ${name} was added for signing in. This device cannot keep your key in a passkey: your passphrase and backup file stay the way to your key.`,
  );
  await expect(panel.getByTestId("passkey-sign-in-only")).toHaveText("Sign-in only");
  await expect(panel.getByTestId("passkey-holds-key")).toHaveCount(0);
  const [stored] = await passkeysOf(user.id);
  expect(stored?.wrappedKey).toBeNull();
  // Holding no key, it is no way back to anything: removed without a word about backups.
  await panel.getByRole("button", { name: REMOVE }).click();
  await expect(panel.getByRole("group")).not.toContainText("This passkey holds your key.");
  await panel.getByRole("button", { name: "Remove passkey" }).click();
  await expect(panel.getByRole("status")).toHaveText(`The passkey ${name} was removed.`);
  expect(await passkeysOf(user.id)).toHaveLength(0);
  await context.close();
});

for (const locale of ["de", "fi"] as const) {
  test(`the passkey list and the last holder's refusal fit a phone and a desktop in ${locale}`, async ({
    browser,
  }) => {
    const { user, context, page } = await personWithKey(browser, locale);
    const panel = page.locator("section.passkeys");
    await checkScreenWidths(page, `${locale}-account-passkeys-none`);
    await addAuthenticator(page, { synced: true });
    const name = passkeyName(await page.evaluate(() => navigator.userAgent));
    await page.locator("#passkey-passphrase").fill(PASSPHRASE);
    await panel.locator(".passkey-add button[type=submit]").click();
    // The passphrase's key derivation, the ceremony and two requests: a busy machine's
    // time. What the panel says (its success or its alert) is what a failure shows.
    await expect(panel.locator(".alert")).toHaveText(await addedHoldsText(locale, name), {
      timeout: 30_000,
    });
    await expect(panel.getByTestId("passkey-item")).toHaveCount(1);
    await checkScreenWidths(page, `${locale}-account-passkeys-one`);

    // Listed as the last holder: Remove explains and offers the file at once, nothing is sent.
    await page.reload();
    const item = panel.getByTestId("passkey-item").first();
    let deletes = 0;
    page.on("request", (request) => {
      if (request.method() === "DELETE") deletes += 1;
    });
    await item.locator("button.button-secondary").click();
    await expect(item.getByTestId("last-key-holder")).toBeVisible();
    expect(deletes).toBe(0);
    await expect(item.locator('a[download="bank-connect-key-backup.json"]')).toBeVisible();
    expect(await passkeysOf(user.id)).toHaveLength(1);
    await checkScreenWidths(page, `${locale}-account-passkeys-last-holder`);
    await context.close();
  });
}
