import { expect, test, type Locator, type Page } from "@playwright/test";
import { generateKeyPair, openJson } from "../lib/crypto/envelope";
import { keyedHash } from "../lib/crypto/keyed-hash";
import { db } from "../lib/db/client";
import { findSandboxAccount, toUpstreamAccount } from "../lib/upstream/sandbox/accounts";
import { connectJourneyDatabase } from "./support/database";
import {
  approveForPartnerKey,
  approveWithKey,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  exchangeCode,
  lastMail,
  newPkce,
  PASSPHRASE,
  signInByCode,
  signInByLink,
  signedInContext,
  uniqueEmail,
  type JourneyClient,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { relayFirstGrant } from "./support/grant";
import { partnerAppForSpec } from "./support/partner-app";
import { recordBankData } from "./support/secrets-seen";

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();

type AccountPayload = {
  ownerName: string;
  iban: string;
  bban: string;
  accountName: string;
  product: string;
};

/**
 * Every account of the tenant opens with this private key to exactly what the
 * sandbox bank holds for its uid; uids match their keyed hashes.
 */
async function expectAccountsOpenWith(subject: string, privateKey: string) {
  connectJourneyDatabase();
  const accounts = await db().account.findMany({ where: { tenant: { subject } } });
  expect(accounts.length).toBeGreaterThan(0);
  for (const account of accounts) {
    const details = openJson<AccountPayload>(privateKey, account.enc ?? "");
    expect(details.iban).toMatch(/^[A-Z]{2}\d{2}[A-Z0-9]+$/);
    const { uid } = openJson<{ uid: string }>(privateKey, account.uidEnc ?? "");
    recordBankData({ ...details, uid });
    expect(keyedHash("uid", uid)).toBe(account.uidHash);
    const held = findSandboxAccount(uid);
    if (!held) throw new Error("the relayed data names no sandbox account");
    const { ownerName, iban, bban, accountName, product } = toUpstreamAccount(held);
    expect(details).toEqual({ ownerName, iban, bban, accountName, product });
  }
}

/**
 * The partner exchanges the relayed code with the flow's PKCE verifier; every
 * account of the tenant it gets opens with `privateKey` (expectAccountsOpenWith).
 */
async function expectPartnerReads(
  client: JourneyClient,
  relayed: Record<string, string>,
  verifier: string,
  privateKey: string,
) {
  const token = await exchangeCode(client, relayed.code ?? "", verifier);
  await expectAccountsOpenWith(token.user, privateKey);
}

test("user-key mode: magic link → key setup → sandbox bank → consent → relay with the user's key", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const { verifier, challenge } = newPkce();
  const email = uniqueEmail();
  const relay = partnerApp().nextRelay();

  await page.goto(authorizePath(client, challenge, { state: "st-user-key" }));
  await signInByLink(page, email);
  await createKey(page);
  await connectSandboxBank(page);
  // The tab that set the key up holds it unlocked: no second passphrase.
  await approveWithKey(page);

  const fields = await relay;
  expect(fields.map(([name]) => name)).toEqual(["code", "state", "iss", "privateKey", "publicKey"]);
  const values = Object.fromEntries(fields);
  expect(values.state).toBe("st-user-key");
  expect(values.iss).toBe(E2E_ORIGIN);
  expect(values.privateKey).toMatch(/^MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/);
  connectJourneyDatabase();
  const user = await db().user.findUniqueOrThrow({ where: { email } });
  expect(values.publicKey).toBe(user.publicKey);

  const token = await exchangeCode(client, values.code ?? "", verifier);
  expect(token.user).toBe(`wl:${client.partnerId}:connect:${email}`);
  await expectAccountsOpenWith(token.user, values.privateKey ?? "");
});

test("challenge=pin_code: the typed code signs in", async ({ page }) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const { verifier, challenge } = newPkce();
  const email = uniqueEmail();
  const relay = partnerApp().nextRelay();

  await page.goto(authorizePath(client, challenge, { challenge: "pin_code", login_hint: email }));
  await expect(page.locator("#email")).toHaveValue(email);
  await signInByCode(page, email);
  await createKey(page);
  await connectSandboxBank(page);
  await approveWithKey(page);

  const values = Object.fromEntries(await relay);
  await expectPartnerReads(client, values, verifier, values.privateKey ?? "");
});

test("partner-key mode: consent before the bank, empty key fields, data opens with the partner's key", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  const { verifier, challenge } = newPkce();
  const email = uniqueEmail();
  const relay = partnerApp().nextRelay();

  await page.goto(authorizePath(client, challenge, { state: "st-partner-key" }));
  await signInByLink(page, email);
  await approveForPartnerKey(page);
  await connectSandboxBank(page);

  const fields = await relay;
  expect(fields.map(([name]) => name)).toEqual(["code", "state", "iss", "privateKey", "publicKey"]);
  const values = Object.fromEntries(fields);
  expect(values).toMatchObject({
    state: "st-partner-key",
    iss: E2E_ORIGIN,
    privateKey: "",
    publicKey: "",
  });
  await expectPartnerReads(client, values, verifier, client.recipientKey?.privateKeyPkcs8B64 ?? "");
});

test("without JavaScript: sign in by code, consent, bank, and the relay's noscript button", async ({
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  const { verifier, challenge } = newPkce();
  const email = uniqueEmail();
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const relay = partnerApp().nextRelay();

  await page.goto(authorizePath(client, challenge, { state: "st-no-js" }));
  await signInByCode(page, email);
  await approveForPartnerKey(page);
  await connectSandboxBank(page);
  // The progress screen refreshes itself into the relay, which cannot submit itself without
  // JavaScript: the person presses its button.
  const button = page.locator('form#relay button[type="submit"]');
  await expect(button).toBeVisible({ timeout: 30_000 });
  await button.click();

  const values = Object.fromEntries(await relay);
  expect(values).toMatchObject({ state: "st-no-js", privateKey: "", publicKey: "" });
  await expectPartnerReads(client, values, verifier, client.recipientKey?.privateKeyPkcs8B64 ?? "");
  await context.close();
});

/** Tabs until `target` has focus (as a keyboard user would), then checks the focus is visible. */
async function tabTo(page: Page, target: Locator) {
  for (let presses = 0; presses < 40; presses += 1) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((element) => element === document.activeElement)) {
      const outline = await target.evaluate((element) => getComputedStyle(element).outlineStyle);
      expect(outline).not.toBe("none");
      return;
    }
  }
  throw new Error("the control cannot be reached with the keyboard");
}

test("keyboard only: every step is reachable with Tab, shows its focus and submits with Enter", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, { recipientKey: true });
  const { verifier, challenge } = newPkce();
  const email = uniqueEmail();
  const relay = partnerApp().nextRelay();

  await page.goto(authorizePath(client, challenge, { challenge: "pin_code" }));
  await tabTo(page, page.locator("#email"));
  await page.keyboard.type(email);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/sent=1/);
  await tabTo(page, page.locator("#code"));
  await page.keyboard.type((await lastMail(email)).code ?? "");
  await page.keyboard.press("Enter");

  await expect(page).toHaveURL(/\/consent$/);
  await tabTo(page, page.locator('form[action="/consent/approve"] button[type="submit"]'));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/banks/);
  await tabTo(page, page.locator(".bank-list li").first().locator('button[type="submit"]'));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/sandbox\/authorize/);
  await tabTo(page, page.locator('button[value="approve"]'));
  await page.keyboard.press("Enter");

  const values = Object.fromEntries(await relay);
  const token = await exchangeCode(client, values.code ?? "", verifier);
  expect(token.access_token).toBeTruthy();
});

test("a new device: the backup file brings the key, and the relay carries the same key pair", async ({
  page,
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  const { relayed: original, backupPath } = await relayFirstGrant(
    page,
    partnerApp(),
    client,
    email,
  );

  // Another browser, already signed in (a second sign-in mail within the minute would be
  // throttled): the account has a key, but this browser does not hold it.
  const context = await signedInContext(browser, email);
  const device = await context.newPage();
  const { verifier, challenge } = newPkce();
  const second = partnerApp().nextRelay();
  await device.goto(authorizePath(client, challenge, { state: "st-new-device" }));
  await expect(device).toHaveURL(/\/consent$/);
  await device.locator('a[href="/setup"]').click();
  await expect(device.locator("#backup")).toBeVisible();
  await device.locator("#backup").setInputFiles({
    name: "other.json",
    mimeType: "application/json",
    buffer: Buffer.from('{"not":"a backup"}'),
  });
  await expect(device.locator("main [role=alert]")).toBeVisible();

  await device.locator("#backup").setInputFiles(backupPath);
  await device.locator("#passphrase").fill(PASSPHRASE);
  await device.locator('form button.button[type="submit"]').click();
  // The same tab is not asked again at consent.
  await approveWithKey(device);

  const values = Object.fromEntries(await second);
  expect(values.state).toBe("st-new-device");
  expect(values.publicKey).toBe(original.publicKey);
  expect(values.privateKey).toBe(original.privateKey);
  await expectPartnerReads(client, values, verifier, values.privateKey ?? "");
  await context.close();
});

test("a partner installs its key after a user connected with their own: that user still relays their key", async ({
  page,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const email = uniqueEmail();
  // The relay's navigation ends at the partner before the next one starts.
  const { relayed: original } = await relayFirstGrant(page, partnerApp(), client, email);
  expect(original.privateKey).not.toBe("");

  // The partner installs its recipient key (the dashboard does this; dashboard.spec.ts drives it).
  connectJourneyDatabase();
  const partnerKey = generateKeyPair();
  await db().partner.update({
    where: { id: client.partnerId },
    data: { recipientPublicKey: partnerKey.publicKeyRawB64, recipientKeyInstalledAt: new Date() },
  });

  const { verifier, challenge } = newPkce();
  const second = partnerApp().nextRelay();
  await page.goto(authorizePath(client, challenge, { state: "st-after-install" }));
  await expect(page).toHaveURL(/\/consent$/);
  // The user-key consent: the key is unlocked in the browser, not the partner-key form. The
  // tab forgot the unlocked key when it posted the first relay, so the passphrase is asked.
  await expect(page.locator('form[action="/consent/approve"]')).toHaveCount(0);
  await approveWithKey(page, PASSPHRASE);

  const values = Object.fromEntries(await second);
  expect(values.state).toBe("st-after-install");
  expect(values.privateKey).toBe(original.privateKey);
  expect(values.publicKey).toBe(original.publicKey);
  await expectPartnerReads(client, values, verifier, values.privateKey ?? "");
});
