import type { ExampleKey } from "./examples";

/** The documentation's pages, in reading order: the nav and the e2e test use this list. */
export interface DocPage {
  path: string;
  title: string;
  /** The examples the page shows. */
  examples: ExampleKey[];
}

export const DOC_PAGES: DocPage[] = [
  {
    path: "/docs",
    title: "Quick start",
    examples: ["discovery", "discoverOpenidClient", "authorizeUrl", "tokenCurl", "accounts"],
  },
  { path: "/docs/flow", title: "The flow", examples: ["authorizeUrl"] },
  { path: "/docs/relay", title: "The relay", examples: ["relay"] },
  {
    path: "/docs/token",
    title: "Token exchange",
    // The TypeScript exchange is the token call's Node tab.
    examples: ["tokenCurl", "tokenTs", "userinfo", "revoke"],
  },
  {
    path: "/docs/data",
    title: "Data API",
    examples: ["accounts", "transactions", "transactionsNext", "connections"],
  },
  { path: "/docs/envelopes", title: "Envelopes", examples: ["openEnvelope"] },
  { path: "/docs/sync", title: "Sync", examples: ["syncOne", "syncBulk"] },
  { path: "/docs/errors", title: "Errors and limits", examples: [] },
  { path: "/docs/events", title: "Events (webhooks)", examples: [] },
  { path: "/docs/recipient-keys", title: "Recipient keys", examples: ["openEnvelope"] },
  { path: "/docs/key-rotation", title: "Replacing the decryption key", examples: [] },
  { path: "/docs/creating-partners", title: "How a partner gets created", examples: [] },
  { path: "/docs/own-data", title: "Use your own data", examples: [] },
];

export const OPENAPI_PATH = "/openapi.json";

/** The API reference, rendered from the OpenAPI document. */
export const REFERENCE_PATH = "/docs/reference";
