import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, test, type Page } from "@playwright/test";
import { childEnv } from "../lib/env";
import { buildAuthorizeUrl } from "../lib/docs/examples/authorize-url";
import { exchangeCode } from "../lib/docs/examples/exchange-code";
import { openEnvelope } from "../lib/docs/examples/open-envelope";
import { checkRelay } from "../lib/docs/examples/relay";
import {
  EXAMPLES,
  exampleSource,
  type ExampleKey,
  type ShellExample,
  type ShellVariable,
} from "../lib/docs/examples";
import { API_CALLS, SDK_INSTALL, SDK_PACKAGE } from "../lib/docs/api-examples";
import { LOOPBACK_EXAMPLES } from "../lib/docs/redirect-uri-examples";
import { DOC_PAGES, REFERENCE_PATH } from "../lib/docs/pages";
import { openApiDocument } from "../lib/api/openapi";
import {
  connectSandboxBank,
  createJourneyClient,
  signInByCode,
  uniqueEmail,
  type JourneyClient,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { checkScreenWidths, expectAxeClean } from "./support/screen-check";
import { partnerAppForSpec } from "./support/partner-app";
import { recordBankData, recordSecret } from "./support/secrets-seen";

/**
 * The partner documentation: every page renders under the strict CSP and
 * shows its examples, and every example runs, as printed, against the e2e
 * server with a real code and key from a partner-key journey.
 */

test.describe.configure({ timeout: 180_000 });

const partnerApp = partnerAppForSpec();
const run = promisify(execFile);

test("every /docs page renders with no CSP violation and shows its examples", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const shown = new Set<ExampleKey>();
  for (const docPage of DOC_PAGES) {
    const response = await page.goto(docPage.path);
    expect(response?.status(), docPage.path).toBe(200);
    expect(response?.headers()["content-security-policy"] ?? "").toMatch(/'nonce-/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(
      docPage.path === "/docs" ? "Quick start" : /\w/,
    );
    const nav = page.getByRole("navigation", { name: "Documentation" });
    for (const other of DOC_PAGES) {
      await expect(nav.getByRole("link", { name: other.title, exact: true })).toHaveAttribute(
        "href",
        other.path,
      );
    }
    await expect(nav.getByRole("link", { name: "OpenAPI document" })).toHaveAttribute(
      "href",
      "/openapi.json",
    );
    await expect(nav.getByRole("link", { name: "API reference" })).toHaveAttribute(
      "href",
      REFERENCE_PATH,
    );
    await expect(nav.locator('[aria-current="page"]')).toHaveAttribute("href", docPage.path);
    for (const key of docPage.examples) {
      const example = EXAMPLES[key];
      const code = page.locator(`[data-example="${example.id}"] pre code`);
      await expect(code, `${docPage.path} shows ${example.id}`).toHaveCount(1);
      expect(await code.textContent()).toBe(exampleSource(example));
      shown.add(key);
    }
    await expectAxeClean(page, { name: docPage.path, seriousOnly: true });
  }
  expect([...shown].sort()).toEqual(Object.keys(EXAMPLES).sort());
  expect(violations).toEqual([]);
});

test("every docs page fits a 390 px screen, long lines scrolling in their block, and is axe clean", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of [...DOC_PAGES.map((docPage) => docPage.path), REFERENCE_PATH]) {
    expect((await page.goto(path))?.status(), path).toBe(200);
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll, `${path} is wider than the screen`).toBeLessThanOrEqual(widths.client);
    await expectAxeClean(page, { name: path });
  }
  // The longest example line is wider than the screen: its block scrolls, the page does not.
  await page.goto("/docs/sync");
  const block = page.locator('[data-example="sync-bulk"] pre');
  const scrolls = await block.evaluate((element) => element.scrollWidth > element.clientWidth);
  expect(scrolls).toBe(true);
});

test("the API reference renders every operation of /openapi.json with its examples, under the CSP", async ({
  page,
}) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto(REFERENCE_PATH);
  expect(response?.headers()["content-security-policy"] ?? "").toMatch(/'nonce-.*'strict-dynamic'/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("API reference");
  const document = openApiDocument() as unknown as {
    paths: Record<string, Record<string, { "x-alias-of"?: string }>>;
  };
  const all = Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${route}`,
      aliasOf: operation["x-alias-of"]
        ? `${method.toUpperCase()} ${operation["x-alias-of"]}`
        : null,
    })),
  );
  const operations = all.filter(({ aliasOf }) => !aliasOf).map(({ key }) => key);
  await expect(page.locator("[data-operation]")).toHaveCount(operations.length);
  for (const operation of operations) {
    await expect(page.locator(`[data-operation="${operation}"]`), operation).toHaveCount(1);
  }
  // An alias is one entry: named on the operation it is an alias of, never listed twice.
  const aliases = all.filter(({ aliasOf }) => aliasOf);
  expect(aliases.map(({ key }) => key)).toContain("PUT /api/partners/mine/recipient-key");
  for (const { key, aliasOf } of aliases) {
    const named = page.locator(`[data-operation="${aliasOf}"] [data-alias="${key}"]`);
    await expect(named, key).toHaveCount(1);
    await expect(named).toContainText(`Also served at ${key}`);
    await expect(page.locator("nav.reference-toc")).not.toContainText(key.split(" ")[1] ?? key);
  }
  const accounts = page.locator('[data-operation="GET /api/accounts"]');
  await expect(accounts.getByRole("heading", { level: 3 })).toHaveText("GET /api/accounts");
  await expect(accounts.locator("pre code").first()).toContainText('"needsReconnect": false');
  const token = page.locator('[data-operation="POST /oauth/token"]');
  await expect(token.locator("pre code").first()).toContainText("grant_type=authorization_code");
  expect(violations).toEqual([]);
});

test("every Node tab that imports the SDK links its install command", async ({ page }) => {
  let linked = 0;
  for (const docPage of DOC_PAGES) {
    await page.goto(docPage.path);
    const panels = page.locator(".code-panel");
    for (let index = 0; index < (await panels.count()); index += 1) {
      const panel = panels.nth(index);
      const code = (await panel.locator("pre").textContent()) ?? "";
      const imports = code.includes(`from "${SDK_PACKAGE}"`);
      await expect(panel.locator("[data-sdk-install]"), `${docPage.path} #${index}`).toHaveCount(
        imports ? 1 : 0,
      );
      if (imports) linked += 1;
    }
  }
  expect(linked).toBeGreaterThanOrEqual(5);

  // The link leads to the command itself, on the quick start.
  await page.goto("/docs/data");
  const node = page.locator('[data-call="accounts"]');
  await node.getByRole("tab", { name: "Node" }).click();
  const link = node.locator("[data-sdk-install]");
  await expect(link).toHaveAttribute("href", "/docs#install-the-sdk");
  await expect(link).toContainText(SDK_INSTALL);
  await link.click();
  await expect(page).toHaveURL(/\/docs#install-the-sdk$/);
  const heading = page.locator("#install-the-sdk");
  await expect(heading).toBeInViewport();
  await expect(page.locator("#install-the-sdk ~ .code-block pre").first()).toHaveText(SDK_INSTALL);
  await checkScreenWidths(page, "en-docs-install-sdk");
});

test("the flow page says which loopback redirect URIs are allowed, the port matched exactly", async ({
  page,
}) => {
  await page.goto("/docs/flow#redirect-uris");
  const section = page.locator("#redirect-uris");
  await expect(section).toHaveText("Redirect URIs");
  const rows = page.getByTestId("loopback-examples").locator("tbody tr");
  await expect(rows).toHaveCount(LOOPBACK_EXAMPLES.length);
  for (const [index, example] of LOOPBACK_EXAMPLES.entries()) {
    await expect(rows.nth(index)).toContainText(example.uri);
    await expect(rows.nth(index).locator("td").nth(1)).toHaveText(example.allowed ? "Yes" : "No");
  }
  await expect(page.locator("main")).toContainText("the port is part of the match");
  await expect(page.locator("main")).toContainText("RFC 8252 §7.3");
  await checkScreenWidths(page, "en-docs-redirect-uris");
  await page.goto("/docs/reference#put-api-partner-recipient-key");
  await checkScreenWidths(page, "en-docs-reference-alias");
});

test("a copy button copies its example, by mouse or keyboard, and says so in the visitor's language", async ({
  browser,
}) => {
  for (const [locale, copy, copied] of [
    ["en-GB", "Copy", "Copied"],
    ["de-DE", "Kopieren", "Kopiert"],
  ] as const) {
    const context = await browser.newContext({ locale });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const page = await context.newPage();
    await page.goto("/docs/data");
    const panel = page.locator('[data-example="accounts"]');
    const button = panel.getByRole("button");
    await expect(button).toHaveText(copy);
    await button.click();
    await expect(panel.getByRole("status")).toHaveText(copied);
    await expect(button).toHaveText(copied);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      exampleSource(EXAMPLES.accounts),
    );

    await page.evaluate(() => navigator.clipboard.writeText(""));
    const quickStart = page.locator("pre", { hasText: "export BASE_URL" }).locator("..");
    await page.goto("/docs");
    await quickStart.getByRole("button").focus();
    await page.keyboard.press("Enter");
    await expect(quickStart.getByRole("status")).toHaveText(copied);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
      "export BASE_URL=https://bank-connect.example",
    );
    await context.close();
  }
});

test("each API call's examples are curl, Node and fetch tabs, and all shown without JavaScript", async ({
  page,
  browser,
}) => {
  await page.goto("/docs/sync");
  const figure = page.locator('[data-call="sync-one"]');
  const tabs = figure.getByRole("tablist", { name: API_CALLS.syncOne.title });
  await expect(tabs.getByRole("tab")).toHaveText(["curl", "Node", "fetch"]);
  const curl = tabs.getByRole("tab", { name: "curl" });
  await expect(curl).toHaveAttribute("aria-selected", "true");
  await expect(figure.getByRole("tabpanel")).toHaveCount(1);
  await expect(figure.getByRole("tabpanel")).toContainText("curl -sS");
  await curl.focus();
  await page.keyboard.press("ArrowRight");
  const node = tabs.getByRole("tab", { name: "Node" });
  await expect(node).toBeFocused();
  await expect(node).toHaveAttribute("aria-selected", "true");
  await expect(figure.getByRole("tabpanel")).toContainText("client.sync(accountId)");
  await page.keyboard.press("End");
  await expect(figure.getByRole("tabpanel")).toContainText("await fetch(");
  await page.keyboard.press("ArrowRight");
  await expect(curl).toBeFocused();
  await tabs.getByRole("tab", { name: "fetch" }).click();
  await expect(figure.getByRole("tabpanel")).toHaveAttribute("data-example", "sync-one-fetch");

  const context = await browser.newContext({ javaScriptEnabled: false });
  const plain = await context.newPage();
  await plain.goto("/docs/sync");
  const stacked = plain.locator('[data-call="sync-one"]');
  await expect(stacked.getByRole("tablist")).toHaveCount(0);
  await expect(stacked.locator(".code-panel")).toHaveCount(3);
  for (const panel of await stacked.locator(".code-panel").all()) await expect(panel).toBeVisible();
  await expect(stacked.locator(".code-panel-title")).toHaveText(["curl", "Node", "fetch"]);
  // A copy button that could do nothing without the script is not shown.
  await expect(stacked.getByRole("button")).toHaveCount(0);
  await context.close();
});

test("discovery's documentation links lead to the docs", async ({ page }) => {
  const discovery = (await (
    await fetch(`${E2E_ORIGIN}/.well-known/oauth-authorization-server`)
  ).json()) as { service_documentation: string; open_banking_io: { documentation: string } };
  expect(discovery.service_documentation).toBe(`${E2E_ORIGIN}/docs`);
  for (const link of [discovery.service_documentation, discovery.open_banking_io.documentation]) {
    const response = await page.goto(link);
    expect(response?.status(), link).toBe(200);
    await expect(page).toHaveURL(`${E2E_ORIGIN}/docs`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Quick start");
  }
});

/** Runs a shell example exactly as printed, with its variables set. */
async function runShell(
  example: ShellExample,
  variables: Partial<Record<ShellVariable, string>>,
): Promise<string> {
  const env: Record<string, string> = {};
  for (const name of example.variables) {
    const value = variables[name];
    if (value === undefined) throw new Error(`${example.id} needs ${name}`);
    env[name] = value;
  }
  const { stdout } = await run("bash", ["-c", exampleSource(example)], {
    env: childEnv(env),
    timeout: 60_000,
  });
  return stdout;
}

/** Runs a fetch example exactly as printed (an ES module), with its variables set. */
async function runFetchJson<T>(
  key: keyof typeof API_CALLS,
  variables: Partial<Record<ShellVariable, string>>,
): Promise<T> {
  const call = API_CALLS[key];
  const env: Record<string, string> = {};
  for (const name of call.variables) env[name] = variables[name] ?? "";
  const { stdout } = await run("node", ["--input-type=module", "-e", call.fetch], {
    env: childEnv(env),
    timeout: 60_000,
  });
  return JSON.parse(stdout) as T;
}

/** Runs a shell example that must fail (curl --fail-with-body exits 22); its printed body. */
async function runShellFailing(
  example: ShellExample,
  variables: Partial<Record<ShellVariable, string>>,
): Promise<{ exitCode: number; stdout: string }> {
  try {
    await runShell(example, variables);
  } catch (error) {
    const failure = error as { code?: number; stdout?: string };
    return { exitCode: failure.code ?? -1, stdout: failure.stdout ?? "" };
  }
  throw new Error(`${example.id} succeeded`);
}

async function runShellJson<T>(
  example: ShellExample,
  variables: Partial<Record<ShellVariable, string>>,
): Promise<T> {
  return JSON.parse(await runShell(example, variables)) as T;
}

/** One user through the hosted flow in partner-key mode, started by the authorize-URL example. */
async function connectUser(page: Page, client: JourneyClient) {
  const pending = await buildAuthorizeUrl({
    issuer: E2E_ORIGIN,
    clientId: client.clientId,
    redirectUri: client.redirectUri,
  });
  expect(pending.url.startsWith(`${E2E_ORIGIN}/oauth/authorize?`)).toBe(true);
  const relay = partnerApp().nextRelay();
  await page.goto(pending.url);
  await signInByCode(page, uniqueEmail("docs"));
  await expect(page).toHaveURL(/\/consent$/);
  await page.locator('form[action="/consent/approve"] button[type="submit"]').click();
  await connectSandboxBank(page, /Sandbox Nordbank DK/);
  const body = new URLSearchParams(await relay);

  // The relay example: state looked up and compared, iss checked against discovery.
  expect(() => checkRelay(body, undefined, E2E_ORIGIN)).toThrow("state_mismatch");
  expect(() => checkRelay(body, { ...pending, state: `${pending.state}x` }, E2E_ORIGIN)).toThrow(
    "state_mismatch",
  );
  expect(() => checkRelay(body, pending, "https://attacker.example")).toThrow("issuer_mismatch");
  const checked = checkRelay(body, pending, E2E_ORIGIN);
  expect(checked.privateKey).toBe("");
  expect(checked.verifier).toBe(pending.verifier);
  return checked;
}

type Account = {
  id: string;
  needsReconnect: boolean;
  enc: string | null;
  uidEnc: string | null;
  balances: { type: string; enc: string }[];
};

test("every example runs against the server, in order, with a real code and key", async ({
  page,
  browser,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri, {
    recipientKey: true,
    name: "Docs Partner",
  });
  const privateKey = client.recipientKey?.privateKeyPkcs8B64 ?? "";
  const base = {
    BASE_URL: E2E_ORIGIN,
    CLIENT_ID: client.clientId,
    CLIENT_SECRET: client.clientSecret,
    REDIRECT_URI: client.redirectUri,
  };

  const discovery = await runShellJson<{ issuer: string; token_endpoint: string }>(
    EXAMPLES.discovery,
    base,
  );
  expect(discovery.issuer).toBe(E2E_ORIGIN);
  expect(discovery.token_endpoint).toBe(`${E2E_ORIGIN}/oauth/token`);
  expect(await runFetchJson("discovery", base)).toEqual(discovery);

  // Token exchange, curl (client_secret_post).
  const first = await connectUser(page, client);
  const grant = { ...base, CODE: first.code, VERIFIER: first.verifier };
  const token = await runShellJson<{ access_token: string; apiKey: string; user: string }>(
    EXAMPLES.tokenCurl,
    grant,
  );
  recordSecret("api key", token.access_token);
  expect(token.access_token).toMatch(/^ebk_/);
  expect(token.apiKey).toBe(token.access_token);
  const firstKey = { ...base, API_KEY: token.access_token };
  const userinfo = await runShellJson<{ sub: string; client_id: string }>(
    EXAMPLES.userinfo,
    firstKey,
  );
  expect(userinfo).toMatchObject({ sub: token.user, client_id: client.clientId });
  // A code works once; replaying it also revokes the key it gave.
  const replay = await runShellFailing(EXAMPLES.tokenCurl, grant);
  expect(replay.exitCode).toBe(22);
  expect(JSON.parse(replay.stdout)).toMatchObject({ error: "invalid_grant" });
  expect((await runShellFailing(EXAMPLES.userinfo, firstKey)).exitCode).toBe(22);

  // Token exchange, TypeScript (client_secret_basic), for a second user: its key reads the data.
  const context = await browser.newContext();
  const second = await connectUser(await context.newPage(), client);
  await context.close();
  const secondToken = await exchangeCode({
    issuer: E2E_ORIGIN,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    redirectUri: client.redirectUri,
    code: second.code,
    verifier: second.verifier,
  });
  recordSecret("api key", secondToken.access_token);
  expect(secondToken.access_token).toMatch(/^ebk_/);
  expect(secondToken.user).not.toBe(token.user);

  const keyed = { ...base, API_KEY: secondToken.access_token };
  expect(await runShellJson<{ sub: string }>(EXAMPLES.userinfo, keyed)).toMatchObject({
    sub: secondToken.user,
  });

  const accounts = await runShellJson<Account[]>(EXAMPLES.accounts, keyed);
  expect(accounts.length).toBeGreaterThan(0);
  expect(await runFetchJson("userinfo", keyed)).toMatchObject({ sub: secondToken.user });
  expect((await runFetchJson<Account[]>("accounts", keyed)).map((entry) => entry.id)).toEqual(
    accounts.map((entry) => entry.id),
  );
  const account = accounts.find((candidate) => !candidate.needsReconnect && candidate.uidEnc);
  if (!account?.enc || !account.uidEnc) throw new Error("no syncable account");

  // The envelope example opens the account with the partner's recipient key.
  const details = openEnvelope<{ iban: string; ownerName: string }>(privateKey, account.enc);
  expect(details.iban).toMatch(/^DK\d{2}[A-Z0-9]+$/);
  const { uid } = openEnvelope<{ uid: string }>(privateKey, account.uidEnc);
  recordBankData({ ...details, uid });
  expect(uid).toBeTruthy();
  for (const balance of account.balances) {
    expect(openEnvelope<{ amount: string }>(privateKey, balance.enc).amount).toMatch(
      /^-?\d+(\.\d+)?$/,
    );
  }
  expect(() =>
    openEnvelope(privateKey, Buffer.from([2, ...Array(120).fill(7)]).toString("base64")),
  ).toThrow("Invalid or unsupported envelope");

  const withAccount = { ...keyed, ACCOUNT_ID: account.id, ACCOUNT_UID: uid };
  const transactions = await runShellJson<{
    items: { creditDebitIndicator: string; enc: string }[];
    total: number;
  }>(EXAMPLES.transactions, withAccount);
  expect(transactions.total).toBeGreaterThan(0);
  expect(transactions.items.length).toBe(Math.max(0, Math.min(50, transactions.total - 50)));
  const newest = await fetch(`${E2E_ORIGIN}/api/accounts/${account.id}/transactions?limit=5`, {
    headers: { "X-Api-Key": secondToken.access_token },
  });
  const firstPage = (await newest.json()) as typeof transactions;
  expect(firstPage.total).toBe(transactions.total);
  // The cursor of a page continues right after it, as the offset does.
  const next = (firstPage as typeof firstPage & { next: string | null }).next ?? "";
  expect(firstPage.total).toBeGreaterThan(5);
  const byCursor = await runShellJson<typeof transactions>(EXAMPLES.transactionsNext, {
    ...withAccount,
    NEXT_CURSOR: next,
  });
  const byOffset = await fetch(
    `${E2E_ORIGIN}/api/accounts/${account.id}/transactions?limit=50&offset=5`,
    { headers: { "X-Api-Key": secondToken.access_token } },
  );
  expect(byCursor.items).toEqual(((await byOffset.json()) as typeof transactions).items);
  for (const item of [...firstPage.items, ...transactions.items.slice(0, 5)]) {
    expect(["CRDT", "DBIT"]).toContain(item.creditDebitIndicator);
    expect(openEnvelope<{ amount: string }>(privateKey, item.enc).amount).toMatch(/^\d+(\.\d+)?$/);
  }

  const connections = await runShellJson<{ isLive: boolean; accountIds: string[] }[]>(
    EXAMPLES.connections,
    keyed,
  );
  expect(connections.some((connection) => connection.accountIds.includes(account.id))).toBe(true);
  expect(connections.every((connection) => connection.isLive)).toBe(true);

  const synced = await runShellJson<{ newTransactions: number; totalFetched: number }>(
    EXAMPLES.syncOne,
    withAccount,
  );
  expect(synced.newTransactions).toBeGreaterThanOrEqual(0);
  expect(synced.totalFetched).toBeGreaterThan(0);

  const bulk = await runShellJson<{
    accounts: number;
    newTransactions: number;
    failures: unknown[];
  }>(EXAMPLES.syncBulk, withAccount);
  expect(bulk).toMatchObject({ accounts: 1, failures: [] });
  expect(bulk.newTransactions).toBeGreaterThanOrEqual(0);

  // Revoke the key; a revoked key is refused at once.
  expect((await runShell(EXAMPLES.revoke, keyed)).trim()).toBe("200");
  expect((await runShellFailing(EXAMPLES.accounts, keyed)).exitCode).toBe(22);
  const refused = await fetch(`${E2E_ORIGIN}/api/accounts`, {
    headers: { "X-Api-Key": secondToken.access_token },
  });
  expect(refused.status).toBe(401);
  // Revoking again, or an unknown key, still answers 200.
  expect((await runShell(EXAMPLES.revoke, keyed)).trim()).toBe("200");
});
