import { EXAMPLES, type ExampleKey, type ShellVariable } from "./examples";

/**
 * Each API call of the partner docs in three languages: curl (the shell
 * example e2e/docs.spec.ts runs), Node, and plain `fetch`.
 *
 * Node uses the published `@open-banking-io/client` SDK for the calls it
 * wraps with a documented shape (discovery and the data API: `discover`,
 * `getAccounts`, `getTransactions`, `getConnections`, `sync`, `syncAll`;
 * its client decrypts the envelopes itself). For the token exchange,
 * userinfo and revocation the Node tab shows the call with Node's own
 * `fetch`, as the SDK's functions for those do it.
 *
 * The `fetch` examples are ES modules that read the same environment
 * variables as the shell examples and print the answer's JSON, so they run
 * as printed (`node --input-type=module`) and the e2e test runs them too.
 */

export type ApiCallKey =
  | "discovery"
  | "token"
  | "userinfo"
  | "accounts"
  | "transactions"
  | "connections"
  | "syncOne"
  | "syncBulk"
  | "revoke";

export interface ApiCall {
  id: string;
  title: string;
  /** The shell example (curl). */
  curl: ExampleKey;
  /** A TypeScript example file shown as the Node tab, instead of `node`. */
  nodeExample?: ExampleKey;
  node?: string;
  fetch: string;
  /** The variables the fetch example reads (the same as curl's). */
  variables: ShellVariable[];
}

const lines = (...source: string[]) => source.join("\n");

/** Reads the variables, fails loudly on an HTTP error, prints the JSON answer. */
const fetchModule = (variables: ShellVariable[], request: string[], print = true) =>
  lines(
    `const { ${variables.join(", ")} } = process.env;`,
    "",
    ...request,
    `if (!response.ok) throw new Error(\`HTTP \${response.status}: \${await response.text()}\`);`,
    print ? "console.log(JSON.stringify(await response.json()));" : "console.log(response.status);",
  );

/** The published Node SDK the Node tabs import, and the command that installs it. */
export const SDK_PACKAGE = "@open-banking-io/client";
export const SDK_INSTALL = `npm install ${SDK_PACKAGE}`;

const SDK_CLIENT = [
  `import { OpenBankingClient } from "${SDK_PACKAGE}";`,
  "",
  "// The credentials bundle: { apiBaseUrl, apiKey, encryptionKey: { privateKey } },",
  "// the API key from the token exchange and your private key (PKCS#8, base64).",
  "const client = OpenBankingClient.fromCredentials(credentials);",
];

const call = (
  curl: ExampleKey,
  fetchRequest: string[],
  node: { source?: string; example?: ExampleKey },
  print = true,
): ApiCall => {
  const shell = EXAMPLES[curl];
  if (shell.language !== "sh") throw new Error(`${curl} is not a shell example`);
  return {
    id: shell.id,
    title: shell.title,
    curl,
    node: node.source,
    nodeExample: node.example,
    fetch: fetchModule(shell.variables, fetchRequest, print),
    variables: shell.variables,
  };
};

const form = (fields: string[]) => [
  "  body: new URLSearchParams({",
  ...fields.map((field) => `    ${field},`),
  "  }),",
];

export const API_CALLS: Record<ApiCallKey, ApiCall> = {
  discovery: call(
    "discovery",
    ["const response = await fetch(`${BASE_URL}/.well-known/oauth-authorization-server`);"],
    {
      source: lines(
        `import { discover } from "${SDK_PACKAGE}";`,
        "",
        "// Checks that the document's issuer is exactly the issuer you asked.",
        "const metadata = await discover(process.env.BASE_URL);",
        "console.log(metadata.token_endpoint);",
      ),
    },
  ),
  token: call(
    "tokenCurl",
    [
      "const response = await fetch(`${BASE_URL}/oauth/token`, {",
      '  method: "POST",',
      ...form([
        'grant_type: "authorization_code"',
        "code: CODE",
        "code_verifier: VERIFIER",
        "redirect_uri: REDIRECT_URI",
        "client_id: CLIENT_ID",
        "client_secret: CLIENT_SECRET",
      ]),
      "});",
    ],
    { example: "tokenTs" },
  ),
  userinfo: call(
    "userinfo",
    [
      "const response = await fetch(`${BASE_URL}/oauth/userinfo`, {",
      "  headers: { Authorization: `Bearer ${API_KEY}` },",
      "});",
    ],
    {
      source: lines(
        "// Node 20+: the SDK's userinfo() makes the same call.",
        "const response = await fetch(`${process.env.BASE_URL}/oauth/userinfo`, {",
        "  headers: { Authorization: `Bearer ${process.env.API_KEY}` },",
        "});",
        'if (response.status === 401) throw new Error("the key is revoked or expired");',
        "const { sub, client_id, expires_at } = await response.json();",
      ),
    },
  ),
  accounts: call(
    "accounts",
    [
      "const response = await fetch(`${BASE_URL}/api/accounts`, {",
      '  headers: { "X-Api-Key": API_KEY },',
      "});",
    ],
    {
      source: lines(
        ...SDK_CLIENT,
        "",
        "// The envelopes come back opened: IBAN, owner, balances.",
        "const accounts = await client.getAccounts();",
      ),
    },
  ),
  transactions: call(
    "transactions",
    [
      "const url = new URL(`${BASE_URL}/api/accounts/${ACCOUNT_ID}/transactions`);",
      'url.searchParams.set("limit", "50");',
      'url.searchParams.set("offset", "50");',
      'const response = await fetch(url, { headers: { "X-Api-Key": API_KEY } });',
    ],
    {
      source: lines(
        ...SDK_CLIENT,
        "",
        "const page = await client.getTransactions(accountId, { limit: 50, offset: 50 });",
        "// page.items: newest first; page.total: every row that matches",
      ),
    },
  ),
  connections: call(
    "connections",
    [
      "const response = await fetch(`${BASE_URL}/api/connections`, {",
      '  headers: { "X-Api-Key": API_KEY },',
      "});",
    ],
    { source: lines(...SDK_CLIENT, "", "const connections = await client.getConnections();") },
  ),
  syncOne: call(
    "syncOne",
    [
      "const response = await fetch(`${BASE_URL}/api/accounts/${ACCOUNT_ID}/sync`, {",
      '  method: "POST",',
      '  headers: { "X-Api-Key": API_KEY, "Content-Type": "application/json" },',
      "  body: JSON.stringify({ uid: ACCOUNT_UID }),",
      "});",
    ],
    {
      source: lines(
        ...SDK_CLIENT,
        "",
        "// Reads the account, opens its uid and posts it; skips an account that needs reconnecting.",
        "const { newTransactions, totalFetched } = await client.sync(accountId);",
      ),
    },
  ),
  syncBulk: call(
    "syncBulk",
    [
      "const response = await fetch(`${BASE_URL}/api/sync`, {",
      '  method: "POST",',
      '  headers: { "X-Api-Key": API_KEY, "Content-Type": "application/json" },',
      "  body: JSON.stringify({ items: [{ accountId: ACCOUNT_ID, uid: ACCOUNT_UID }] }),",
      "});",
    ],
    {
      source: lines(
        ...SDK_CLIENT,
        "",
        "// Every account of the key in one call; failures are listed per account.",
        "const { accounts, newTransactions, failures } = await client.syncAll();",
      ),
    },
  ),
  revoke: call(
    "revoke",
    [
      "const response = await fetch(`${BASE_URL}/oauth/revoke`, {",
      '  method: "POST",',
      ...form([
        "token: API_KEY",
        'token_type_hint: "access_token"',
        "client_id: CLIENT_ID",
        "client_secret: CLIENT_SECRET",
      ]),
      "});",
    ],
    {
      source: lines(
        "// Node 20+, client_secret_basic: the SDK's revokeToken() makes the same call.",
        "const { BASE_URL, CLIENT_ID, CLIENT_SECRET, API_KEY } = process.env;",
        "const basic = Buffer.from(",
        "  `${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`,",
        ').toString("base64");',
        "const response = await fetch(`${BASE_URL}/oauth/revoke`, {",
        '  method: "POST",',
        "  headers: { Authorization: `Basic ${basic}` },",
        '  body: new URLSearchParams({ token: API_KEY, token_type_hint: "access_token" }),',
        "});",
        "// 200 also for a key that was already revoked or unknown.",
        "if (response.status !== 200) throw new Error(`revocation refused: ${response.status}`);",
      ),
    },
    false,
  ),
};

/** Which API call a page's shell example belongs to, if it is one. */
export function apiCallOf(example: ExampleKey): ApiCallKey | null {
  const found = Object.entries(API_CALLS).find(([, entry]) => entry.curl === example);
  return found ? (found[0] as ApiCallKey) : null;
}
