import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * Every copy-paste example of the partner documentation, in one place: the
 * pages render `exampleSource(example)` and e2e/docs.spec.ts runs the very
 * same text (shell examples through bash with the variables below set;
 * TypeScript examples are the exported functions of lib/docs/examples/*.ts,
 * rendered from their own files).
 */

/** The variables the shell examples read. */
export const SHELL_VARIABLES = {
  BASE_URL: "the service's issuer, e.g. https://bank-connect.example (no trailing slash)",
  CLIENT_ID: "your Connect client id (obc_…)",
  CLIENT_SECRET: "its secret",
  REDIRECT_URI: "the redirect URI of the authorization, character for character",
  CODE: "the code from the relay",
  VERIFIER: "the PKCE verifier you kept for that state",
  API_KEY: "the ebk_… API key from the token exchange",
  ACCOUNT_ID: "an account id from GET /api/accounts",
  ACCOUNT_UID: "that account's uid, opened from its uidEnc envelope",
  NEXT_CURSOR: "the next value of the transactions page before",
} as const;

export type ShellVariable = keyof typeof SHELL_VARIABLES;

interface ExampleBase {
  id: string;
  title: string;
}

export interface ShellExample extends ExampleBase {
  language: "sh";
  source: string;
  /** The variables it reads. */
  variables: ShellVariable[];
}

export interface TypeScriptExample extends ExampleBase {
  language: "ts";
  /** File under lib/docs/examples/ whose exported function is the example. */
  file: string;
}

export type Example = ShellExample | TypeScriptExample;

const sh = (
  id: string,
  title: string,
  variables: ShellVariable[],
  lines: string[],
): ShellExample => ({ id, title, language: "sh", variables, source: lines.join("\n") });

export const EXAMPLES = {
  discovery: sh(
    "discovery",
    "Read the discovery document",
    ["BASE_URL"],
    [`curl -sS --fail-with-body "$BASE_URL/.well-known/oauth-authorization-server"`],
  ),
  discoverOpenidClient: {
    id: "discover-openid-client",
    title: "Discover with openid-client (algorithm oauth2)",
    language: "ts",
    file: "discover-openid-client.ts",
  },
  authorizeUrl: {
    id: "authorize-url",
    title: "Build an authorize URL with PKCE",
    language: "ts",
    file: "authorize-url.ts",
  },
  relay: {
    id: "relay",
    title: "Check the relay on your redirect URI",
    language: "ts",
    file: "relay.ts",
  },
  tokenCurl: sh(
    "token-curl",
    "Exchange the code (client_secret_post)",
    ["BASE_URL", "CLIENT_ID", "CLIENT_SECRET", "REDIRECT_URI", "CODE", "VERIFIER"],
    [
      `curl -sS --fail-with-body "$BASE_URL/oauth/token" \\`,
      `  --data-urlencode "grant_type=authorization_code" \\`,
      `  --data-urlencode "code=$CODE" \\`,
      `  --data-urlencode "code_verifier=$VERIFIER" \\`,
      `  --data-urlencode "redirect_uri=$REDIRECT_URI" \\`,
      `  --data-urlencode "client_id=$CLIENT_ID" \\`,
      `  --data-urlencode "client_secret=$CLIENT_SECRET"`,
    ],
  ),
  tokenTs: {
    id: "token-ts",
    title: "Exchange the code (client_secret_basic)",
    language: "ts",
    file: "exchange-code.ts",
  },
  userinfo: sh(
    "userinfo",
    "Who the key reads for",
    ["BASE_URL", "API_KEY"],
    [
      `curl -sS --fail-with-body "$BASE_URL/oauth/userinfo" \\`,
      `  -H "Authorization: Bearer $API_KEY"`,
    ],
  ),
  accounts: sh(
    "accounts",
    "List the accounts",
    ["BASE_URL", "API_KEY"],
    [`curl -sS --fail-with-body "$BASE_URL/api/accounts" \\`, `  -H "X-Api-Key: $API_KEY"`],
  ),
  transactions: sh(
    "transactions",
    "Read one page of transactions",
    ["BASE_URL", "API_KEY", "ACCOUNT_ID"],
    [
      `curl -sS --fail-with-body \\`,
      `  "$BASE_URL/api/accounts/$ACCOUNT_ID/transactions?limit=50&offset=50" \\`,
      `  -H "X-Api-Key: $API_KEY"`,
    ],
  ),
  transactionsNext: sh(
    "transactions-next",
    "Read the page after it, by cursor",
    ["BASE_URL", "API_KEY", "ACCOUNT_ID", "NEXT_CURSOR"],
    [
      `curl -sS --fail-with-body \\`,
      `  "$BASE_URL/api/accounts/$ACCOUNT_ID/transactions?limit=50&cursor=$NEXT_CURSOR" \\`,
      `  -H "X-Api-Key: $API_KEY"`,
    ],
  ),
  connections: sh(
    "connections",
    "List the bank connections",
    ["BASE_URL", "API_KEY"],
    [`curl -sS --fail-with-body "$BASE_URL/api/connections" \\`, `  -H "X-Api-Key: $API_KEY"`],
  ),
  openEnvelope: {
    id: "open-envelope",
    title: "Open an envelope (node:crypto)",
    language: "ts",
    file: "open-envelope.ts",
  },
  syncOne: sh(
    "sync-one",
    "Sync one account",
    ["BASE_URL", "API_KEY", "ACCOUNT_ID", "ACCOUNT_UID"],
    [
      `curl -sS --fail-with-body -X POST "$BASE_URL/api/accounts/$ACCOUNT_ID/sync" \\`,
      `  -H "X-Api-Key: $API_KEY" \\`,
      `  -H "Content-Type: application/json" \\`,
      `  -d "{\\"uid\\": \\"$ACCOUNT_UID\\"}"`,
    ],
  ),
  syncBulk: sh(
    "sync-bulk",
    "Sync several accounts in one call",
    ["BASE_URL", "API_KEY", "ACCOUNT_ID", "ACCOUNT_UID"],
    [
      `curl -sS --fail-with-body -X POST "$BASE_URL/api/sync" \\`,
      `  -H "X-Api-Key: $API_KEY" \\`,
      `  -H "Content-Type: application/json" \\`,
      `  -d "{\\"items\\": [{\\"accountId\\": \\"$ACCOUNT_ID\\", \\"uid\\": \\"$ACCOUNT_UID\\"}]}"`,
    ],
  ),
  revoke: sh(
    "revoke",
    "Revoke the API key",
    ["BASE_URL", "CLIENT_ID", "CLIENT_SECRET", "API_KEY"],
    [
      `curl -sS --fail-with-body -o /dev/null -w "%{http_code}\\n" "$BASE_URL/oauth/revoke" \\`,
      `  --data-urlencode "token=$API_KEY" \\`,
      `  --data-urlencode "token_type_hint=access_token" \\`,
      `  --data-urlencode "client_id=$CLIENT_ID" \\`,
      `  --data-urlencode "client_secret=$CLIENT_SECRET"`,
    ],
  ),
} satisfies Record<string, Example>;

export type ExampleKey = keyof typeof EXAMPLES;

/** The text shown on the page (and, for shell examples, the text bash runs). */
export function exampleSource(example: Example): string {
  if (example.language === "sh") return example.source;
  return readFileSync(path.join(process.cwd(), "lib", "docs", "examples", example.file), "utf8");
}
