import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { openJson } from "../lib/crypto/envelope";
import { db } from "../lib/db/client";
import { asKeyBackup, openKeyBackup } from "../lib/keys/key-backup";
import { connectJourneyDatabase } from "./support/database";
import {
  addSessionCookie,
  confirmBackup,
  downloadBackup,
  PASSPHRASE,
  signInByCode,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { checkScreenWidths } from "./support/screen-check";
import { recordSecret } from "./support/secrets-seen";

/**
 * The command-line client's login as a person goes through it
 * (docs/own-data.md), with a real loopback listener on 127.0.0.1 standing in
 * for the program and Chromium as the person's browser: sign in, set up a
 * key, allow the program; the listener gets the code, the exchange gives a
 * key that reads the person's accounts. Then, as the program does: the banks,
 * connecting a sandbox bank through its consent page to a new connection,
 * and syncing. Each screen is checked at 390 and 1280 px (nothing scrolls
 * sideways, axe finds nothing); SHOTS_DIR keeps them, in English and German.
 */

test.describe.configure({ timeout: 300_000 });

const CLI_AGENT = "open-banking-io/cli/dev";
const GO_AGENT = "open-banking-io/go/0.5.0";

/** The program's side: a listener on the loopback address, as `openbanking login` starts one. */
async function startListener(): Promise<{ server: Server; port: number; codes: URL[] }> {
  const codes: URL[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method === "GET" && url.pathname === "/callback" && url.searchParams.get("code")) {
      codes.push(url);
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end("<!doctype html><title>Login complete</title><h2>Login complete</h2>");
      return;
    }
    response.writeHead(400).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, codes };
}

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return {
    verifier,
    challenge: createHash("sha256").update(verifier).digest("base64url"),
    state: randomBytes(32).toString("base64url"),
  };
}

const startPath = (port: number, challenge: string, state: string) =>
  `/auth/cli/start?${new URLSearchParams({ port: String(port), code_challenge: challenge, state })}`;

/** The Go SDK's requests: X-Api-Key and its User-Agent. */
async function sdk(apiKey: string, path: string, body?: unknown) {
  const response = await fetch(`${E2E_ORIGIN}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      "X-Api-Key": apiKey,
      "User-Agent": GO_AGENT,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text) as unknown;
}

/** A browser in `locale`, signed in as `email` with a fresh session. */
async function signedIn(browser: Browser, email: string, locale: string) {
  connectJourneyDatabase();
  const user = await db().user.findUniqueOrThrow({ where: { email } });
  const context = await browser.newContext({ locale });
  await addSessionCookie(context, user.id);
  return context;
}

async function expectConfirmScreen(page: Page) {
  await expect(page.locator('form[action="/auth/cli/confirm"] button[value="allow"]')).toBeVisible({
    timeout: 30_000,
  });
}

test("login with a real loopback listener, then banks, connect to a sandbox bank and sync", async ({
  browser,
}) => {
  const listener = await startListener();
  try {
    const { verifier, challenge, state } = pkce();
    const email = uniqueEmail("cli");
    const context = await browser.newContext({ locale: "en-US", acceptDownloads: true });
    const page = await context.newPage();

    // The program opens the browser: signed out, the hosted sign-in comes first.
    await page.goto(startPath(listener.port, challenge, state));
    await expect(page).toHaveURL(/\/login\?returnUrl=%2Fauth%2Fcli%2Fstart/);
    await signInByCode(page, email);
    await expect(page).toHaveURL(/\/auth\/cli\/start\?port=/);

    // A new person has no key: it is set up here, its backup saved, before anything is allowed.
    await expect(page.locator("#passphrase")).toBeVisible({ timeout: 30_000 });
    await checkScreenWidths(page, "cli-key-setup-en");
    recordSecret("passphrase", PASSPHRASE);
    await page.locator("#passphrase").fill(PASSPHRASE);
    await page.locator("#confirm").fill(PASSPHRASE);
    await page.locator('form button.button[type="submit"]').click();
    const backupPath = await downloadBackup(page);
    await confirmBackup(page);

    // The question, then Allow: the browser goes to the listener with the code.
    await expectConfirmScreen(page);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(
      "Allow the command-line client?",
    );
    await expect(page.locator("main")).toContainText(
      "Allow the command-line client on this computer to read your banks?",
    );
    await expect(page.locator("main")).toContainText(`port ${listener.port}`);
    await checkScreenWidths(page, "cli-confirm-en");
    await page.locator('button[value="allow"]').click();
    await expect.poll(() => listener.codes.length, { timeout: 30_000 }).toBe(1);
    await expect(page).toHaveURL(
      new RegExp(`^http://127\\.0\\.0\\.1:${listener.port}/callback\\?`),
    );
    await expect(page.locator("h2")).toHaveText("Login complete");
    const received = listener.codes[0] as URL;
    expect(received.searchParams.get("state")).toBe(state);
    const code = received.searchParams.get("code") ?? "";
    recordSecret("authorization code", code);

    // The program's exchange.
    const exchanged = await fetch(`${E2E_ORIGIN}/auth/cli/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": CLI_AGENT },
      body: JSON.stringify({ code, codeVerifier: verifier }),
    });
    expect(exchanged.status).toBe(200);
    const token = (await exchanged.json()) as Record<string, string>;
    recordSecret("api key", token.apiKey);
    expect(Object.keys(token)).toEqual(["apiKey", "apiBaseUrl", "user", "prefix"]);
    expect(token).toMatchObject({ apiBaseUrl: E2E_ORIGIN, user: email });
    const apiKey = token.apiKey ?? "";
    expect(token.prefix).toBe(apiKey.slice(0, 12));
    // Once only.
    const replayed = await fetch(`${E2E_ORIGIN}/auth/cli/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": CLI_AGENT },
      body: JSON.stringify({ code, codeVerifier: pkce().verifier }),
    });
    expect(replayed.status).toBe(400);

    // The key reads the person's accounts (none yet).
    expect(await sdk(apiKey, "/api/accounts")).toEqual([]);

    // banks --country DK
    const banks = (await sdk(apiKey, "/api/aspsps?country=DK")) as { name: string }[];
    expect(banks.map((bank) => bank.name)).toContain("Sandbox Nordbank DK");

    // connect "Sandbox Nordbank DK": the consent page in the browser, then the program's poll.
    const before = (await sdk(apiKey, "/api/connections")) as { sessionId: string }[];
    const { url } = (await sdk(apiKey, "/api/authorizations", {
      aspspName: "Sandbox Nordbank DK",
      country: "DK",
    })) as { url: string };
    await page.goto(url);
    await expect(page).toHaveURL(/\/sandbox\/authorize/);
    await page.locator('button[value="approve"]').click();
    await expect(page).toHaveURL(/\/banks\/connected\?result=connecting$/);
    await expect(page.getByTestId("own-bank-result")).toBeVisible();
    await checkScreenWidths(page, "cli-bank-connected-en");
    let added: { sessionId: string; aspspName: string; accountCount: number } | undefined;
    await expect
      .poll(
        async () => {
          const now = (await sdk(apiKey, "/api/connections")) as NonNullable<typeof added>[];
          added = now.find((one) => !before.some((old) => old.sessionId === one.sessionId));
          return added?.aspspName;
        },
        { timeout: 180_000, intervals: [2_000] },
      )
      .toBe("Sandbox Nordbank DK");

    // The key opens what it reads with the person's key (from their backup, as `key import` would).
    const backup = asKeyBackup(JSON.parse(readFileSync(backupPath, "utf8")));
    const { privateKey } = await openKeyBackup(backup, PASSPHRASE);
    recordSecret("private key", privateKey);
    let accounts: { id: string; uidEnc: string | null }[] = [];
    await expect
      .poll(
        async () => {
          accounts = (await sdk(apiKey, "/api/accounts")) as typeof accounts;
          return accounts.length;
        },
        { timeout: 60_000 },
      )
      .toBe(added?.accountCount);
    const uids = accounts.map((account) => ({
      accountId: account.id,
      uid: openJson<{ uid: string }>(privateKey, account.uidEnc ?? "").uid,
    }));
    for (const { uid } of uids) recordSecret("uid", uid);

    // sync <id>, then sync --all.
    const first = uids[0];
    if (!first) throw new Error("no account");
    const one = (await sdk(apiKey, `/api/accounts/${encodeURIComponent(first.accountId)}/sync`, {
      uid: first.uid,
    })) as { newTransactions: number; totalFetched: number };
    expect(Number.isInteger(one.newTransactions) && Number.isInteger(one.totalFetched)).toBe(true);
    const all = (await sdk(apiKey, "/api/sync", { items: uids })) as { accounts: number };
    expect(all.accounts).toBe(uids.length);

    // My access lists the key; a key made by hand shows its value once; Revoke ends the program's.
    await page.goto("/account");
    const panel = page.locator('section[aria-labelledby="own-keys-title"]');
    await expect(panel.getByTestId("own-key")).toHaveCount(1);
    await expect(panel.getByTestId("own-key")).toContainText("Command-line client");
    await expect(panel.getByTestId("own-key")).toContainText(`${token.prefix}…`);
    await panel.locator("#own-key-name").fill("Budget sheet");
    await panel.locator('form button[type="submit"]').click();
    await expect(panel.getByTestId("own-key-made")).toBeVisible();
    const made = await panel.locator("#own-key-value").inputValue();
    recordSecret("api key", made);
    expect(made).toMatch(/^ebk_/);
    expect(await sdk(made, "/api/connections")).toHaveLength(1);
    await expect(panel.getByTestId("own-key")).toHaveCount(2);
    await panel.scrollIntoViewIfNeeded();
    await checkScreenWidths(page, "cli-own-keys-en");
    const cliKey = panel.getByTestId("own-key").filter({ hasText: "Command-line client" });
    await cliKey.getByRole("button", { name: /^Revoke/ }).click();
    await cliKey.getByRole("button", { name: "Revoke the key" }).click();
    await expect(panel.locator('p[role="status"]')).toHaveText("Command-line client is revoked.");
    await expect(panel.getByTestId("own-key")).toHaveCount(1);
    const refused = await fetch(`${E2E_ORIGIN}/api/accounts`, {
      headers: { "X-Api-Key": apiKey, "User-Agent": GO_AGENT },
    });
    expect(refused.status).toBe(401);
    await context.close();

    // The same screens in German, and the refusals and the cancelled screen.
    const german = await signedIn(browser, email, "de-DE");
    const de = await german.newPage();
    const second = pkce();
    await de.goto(startPath(listener.port, second.challenge, second.state));
    await expectConfirmScreen(de);
    await expect(de.getByRole("heading", { level: 1 })).toHaveText(
      "Kommandozeilen-Client erlauben?",
    );
    await checkScreenWidths(de, "cli-confirm-de");
    await de.locator('button[value="cancel"]').click();
    await expect(de).toHaveURL(/\/auth\/cli\/start\?cancelled=1$/);
    await expect(de.getByTestId("cli-cancelled")).toBeVisible();
    await checkScreenWidths(de, "cli-cancelled-de");
    expect(listener.codes).toHaveLength(1);
    await de.goto(`/auth/cli/start?port=evil.example%3A80&code_challenge=${second.challenge}`);
    await expect(de.getByTestId("cli-invalid")).toBeVisible();
    await expect(de.locator('form[action="/auth/cli/confirm"]')).toHaveCount(0);
    await checkScreenWidths(de, "cli-invalid-de");
    await de.goto("/banks/connected?result=connecting");
    await checkScreenWidths(de, "cli-bank-connected-de");
    await de.goto("/account");
    await expect(de.locator('section[aria-labelledby="own-keys-title"] h2')).toHaveText(
      "Ihre eigenen Schlüssel",
    );
    await checkScreenWidths(de, "cli-own-keys-de");
    await german.close();

    const english = await signedIn(browser, email, "en-US");
    const en = await english.newPage();
    await en.goto(`/auth/cli/start?port=${listener.port}&code_challenge=too-short`);
    await expect(en.getByTestId("cli-invalid")).toHaveText(
      "It carries no valid S256 code challenge.",
    );
    await checkScreenWidths(en, "cli-invalid-en");
    await english.close();
  } finally {
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  }
});
