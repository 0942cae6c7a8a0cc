import { buildServerMetadata } from "../oauth/metadata";

/**
 * Example bodies for /openapi.json: what a request and a successful answer of
 * each operation look like. Every one is validated against the schema it is
 * attached to (lib/api/openapi.test.ts), so an example cannot drift from the
 * wire shapes. Identifiers are made up; envelopes are shortened with "…".
 */

const ISSUER = "https://bank-connect.example";
const CLIENT_ID = "obc_3f9a1c7e52d84b06";
const API_KEY = "ebk_7Qm2xV9pLr4tZs8NwK3yBd6HfJc1Ga5E";
const ACCOUNT_ID = "5b0e6f0a-3c1d-4b8e-9f2a-7d64c1e0a9b3";
const SESSION_ID = "d1f7c2b4-8e3a-4c59-a6b0-2f9e8d7c1a54";
const ENVELOPE = "AQRnbwT4RL0CIfW+/XM1fRFPs8Ydfq73vDgSQuszQMH5Q5T/m46Qpi9fBA3po+teUaEJ…";
const UID = "c5d93aa7-5e23-4da0-ba88-42b9a584492c";
const FINGERPRINT = "762cb80a5e1bedb0";
const PUBLIC_KEY =
  "BHn1k5cO8o2qXwz0dKpA3Lr9Yb7sVt6mJ4eGfUiHc1NxQ2aZ5yWvR8uT3kE0jD9gS7hF6pL4oM2nB1xC5vA8zQ0=";

/** Built by the same function as the real answer, for an example deployment. */
export const discoveryExample = buildServerMetadata({
  issuer: ISSUER,
  vendorBlock: "open_banking_io",
  documentationUrl: `${ISSUER}/docs`,
  recipientKeyRequired: false,
});

export const tokenRequestExample = {
  grant_type: "authorization_code",
  code: "oc_kX2v9QmR4tLp7sZ1",
  code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
  redirect_uri: "https://app.example/callback",
  client_id: CLIENT_ID,
  client_secret: "ocs_Vd8Q2mZx7Lr4pKs9Tn1Hw6Jb3Fc5Ga0E",
};

export const tokenResponseExample = {
  access_token: API_KEY,
  token_type: "Bearer",
  expires_in: 31536000,
  scope: "accounts.read",
  apiKey: API_KEY,
  apiBaseUrl: ISSUER,
  user: "wl:p:connect:ada@example.com",
};

export const revokeRequestExample = { token: API_KEY, token_type_hint: "access_token" };

export const userinfoExample = {
  sub: "wl:p:connect:ada@example.com",
  email: "ada@example.com",
  partner_id: "8c1e4f2a-6b3d-4a90-b7e5-0d2c9f1a3e68",
  client_id: CLIENT_ID,
  scope: "accounts.read",
  expires_at: "2027-11-23T10:15:00.000Z",
};

export const cancelRequestExample = { csrf: "Zk3pQ8vX2mL7sR4tN9wB" };

export const accountsExample = [
  {
    id: ACCOUNT_ID,
    aspspName: "Sandbox Nordbank",
    aspspCountry: "DK",
    currency: "DKK",
    accountType: "CACC",
    bic: "NDEADKKK",
    needsReconnect: false,
    balances: [{ type: "ITBD", currency: "DKK", referenceDate: "2026-11-22", enc: ENVELOPE }],
    enc: ENVELOPE,
    displayNameEnc: null,
    uidEnc: ENVELOPE,
  },
];

export const transactionPageExample = {
  items: [
    {
      id: "e4a9c1d7-2b6f-4e83-9a05-7c3d1f8b6e29",
      currency: "DKK",
      creditDebitIndicator: "DBIT",
      status: "BOOK",
      bookingDate: "2026-11-21",
      valueDate: "2026-11-21",
      transactionDate: "2026-11-20",
      bankTransactionCode: "PMNT-CCRD-POSD",
      enc: ENVELOPE,
    },
  ],
  total: 312,
  next: "eyJiIjoiMjAyNi0xMS0yMSIsInQiOiIyMDI2LTExLTIwIiwiaSI6ImU0YTljMWQ3In0",
};

export const connectionsExample = [
  {
    sessionId: SESSION_ID,
    aspspName: "Sandbox Nordbank",
    aspspCountry: "DK",
    validUntil: "2027-05-22T09:30:00.000Z",
    status: "Active",
    accountCount: 1,
    lastSyncedAt: "2026-11-23T06:00:12.000Z",
    psuType: "personal",
    isLive: true,
    accountIds: [ACCOUNT_ID],
  },
];

export const syncRequestExample = { uid: UID };
export const syncResultExample = { newTransactions: 3, totalFetched: 27 };
export const bulkSyncRequestExample = { items: [{ accountId: ACCOUNT_ID, uid: UID }] };
export const bulkSyncResultExample = { accounts: 1, newTransactions: 3, failures: [] };

export const banksExample = [
  {
    name: "Sandbox Nordbank DK",
    country: "DK",
    logo: null,
    bic: "SBNODKKK",
    beta: false,
    psuTypes: ["personal", "business"],
  },
];
export const authorizationRequestExample = {
  country: "DK",
  aspspName: "Sandbox Nordbank DK",
  psuType: "personal",
};
export const authorizationUrlExample = {
  url: "https://bank.example/consent?authorization=9f1c2e7a",
};

export const healthExample = { status: "ok", database: "ok" };
export const unhealthyExample = { status: "unavailable", database: "unreachable" };
export const livezExample = { status: "ok" };
export const readyExample = {
  status: "ready",
  checks: { database: { status: "ok" }, migrations: { status: "ok" }, upstream: { status: "ok" } },
};
export const notReadyExample = {
  status: "not_ready",
  checks: {
    database: { status: "ok" },
    migrations: {
      status: "failed",
      reason: "1 migration not applied: 20261127081635_personal_keys",
    },
    upstream: { status: "ok" },
  },
};

const branding = {
  displayName: "Budget Buddy",
  logoUrl: "/logos/3b5d8f1e0c2a4967b8d1e3f5a7c9e0b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a3c5.png",
  accentColor: "#1f5eff",
  supportUrl: "https://budgetbuddy.example/help",
  termsUrl: "https://budgetbuddy.example/terms",
  privacyUrl: "https://budgetbuddy.example/privacy",
  purpose: "Shows your spending by category.",
  defaultLanguage: "en",
};

export const brandingRequestExample = branding;

export const partnerExample = {
  id: "8c1e4f2a-6b3d-4a90-b7e5-0d2c9f1a3e68",
  name: "Budget Buddy ApS",
  status: "active",
  registeredDomain: "budgetbuddy.example",
  branding,
  recipientKey: { fingerprint: FINGERPRINT, installedAt: "2026-10-02T08:12:44.000Z" },
};

export const imageBytesExample = "(the image file's bytes: PNG, JPEG or WebP)";

export const clientBrandingExample = {
  clientId: CLIENT_ID,
  name: "Budget Buddy",
  logoUrl: branding.logoUrl,
  accentColor: "#1f5eff",
  accentTextColor: "#ffffff",
  purpose: branding.purpose,
  supportUrl: branding.supportUrl,
  termsUrl: branding.termsUrl,
  privacyUrl: branding.privacyUrl,
  defaultLanguage: "en",
};

export const clientExample = {
  clientId: CLIENT_ID,
  name: "Budget Buddy web",
  redirectUris: ["https://app.budgetbuddy.example/callback"],
  createdAt: "2026-09-14T12:00:00.000Z",
  previousSecretExpiresAt: null,
};

export const clientMetadataExample = {
  name: "Budget Buddy web",
  redirectUris: ["https://app.budgetbuddy.example/callback"],
};

export const newClientExample = {
  clientId: CLIENT_ID,
  clientSecret: "ocs_Vd8Q2mZx7Lr4pKs9Tn1Hw6Jb3Fc5Ga0E",
  name: "Budget Buddy web",
  redirectUris: ["https://app.budgetbuddy.example/callback"],
};

export const rotatedSecretExample = {
  clientSecret: "ocs_Pq4Lm8Zx2Vr7Ks1Tn9Hw3Jb6Fc0Ga5Ed",
  previousSecretExpiresAt: "2026-11-24T10:15:00.000Z",
};

export const auditEventPageExample = {
  events: [
    {
      id: "0193a4c2-7e1f-7b3d-9c5a-2e8f6d4b1a07",
      at: "2026-11-23T10:15:00.000Z",
      type: "client.secret_rotated",
      actor: { kind: "user", email: "owner@budgetbuddy.example" },
      clientId: CLIENT_ID,
      subject: null,
      clientIp: "203.0.113.7",
      details: {},
    },
  ],
  next: null,
};

export const challengeRequestExample = { publicKey: PUBLIC_KEY };

export const challengeExample = {
  fingerprint: FINGERPRINT,
  envelope: ENVELOPE,
  issuedAt: "2026-11-23T10:15:00.000Z",
  expiresAt: "2026-11-23T10:25:00.000Z",
};

export const installRequestExample = {
  publicKey: PUBLIC_KEY,
  challengeAnswer: "q9Zx2Lm7Vr4Ks8Tn1Hw6Jb3Fc5Ga0EdPy",
};

export const installedExample = {
  fingerprint: FINGERPRINT,
  installedAt: "2026-11-23T10:16:02.000Z",
};

export const signUpRequestExample = { name: "Acme Budget" };
export const signUpExample = {
  partner: { id: "7b1e2f4a-9c3d-4e5f-8a6b-1c2d3e4f5a6b", name: "Acme Budget" },
  created: true,
};

const analyticsCounts = {
  started: 120,
  signedIn: 96,
  keySetUp: 41,
  bankConnected: 80,
  approved: 71,
  cancelled: 9,
  failed: 3,
};
export const analyticsExample = {
  period: "7d",
  from: "2026-11-16T00:00:00.000Z",
  to: "2026-11-23T00:00:00.000Z",
  unit: "day",
  client: null,
  totals: analyticsCounts,
  cancelled: [
    { step: "login", count: 4 },
    { step: "banks", count: 5 },
  ],
  failed: [{ reason: "bank_denied", count: 3 }],
  approvalTime: {
    approvals: 71,
    medianSeconds: 105,
    buckets: [
      { le: 60, count: 12 },
      { le: 120, count: 30 },
      { le: 300, count: 29 },
    ],
  },
  series: [{ start: "2026-11-22T00:00:00.000Z", counts: analyticsCounts }],
};

const WEBHOOK_ENDPOINT_ID = "6f1c2b9e-4d7a-4c31-9e25-8b0f3a7d6c14";

export const webhookEndpointExample = {
  id: WEBHOOK_ENDPOINT_ID,
  url: "https://app.budgetbuddy.example/webhooks/bank-connect",
  eventTypes: ["access.ended", "connection.history_ready"],
  enabled: true,
  disabledReason: null,
  disabledAt: null,
  createdAt: "2026-11-20T09:30:00.000Z",
  previousSecretExpiresAt: null,
};

export const webhookEndpointBodyExample = {
  url: "https://app.budgetbuddy.example/webhooks/bank-connect",
  eventTypes: ["access.ended", "connection.history_ready"],
};

export const newWebhookEndpointExample = {
  ...webhookEndpointExample,
  secret: "whsec_MfKQ9r8GKYqXfX3Z1sNQm5mJ2bqgS4VwFh7TcAkxLx0=",
};

export const rotatedWebhookSecretExample = {
  secret: "whsec_2yQ7cVwK9mB4tR1xN8pLz6Hs3Jd5Fg0Ea+Uk7Wq1Ys4=",
  previousSecretExpiresAt: "2026-11-28T09:30:00.000Z",
};

export const webhookDeliveryExample = {
  id: "a3e1f0c2-7b6d-4e59-8c14-2d9f6b0a1e37",
  eventId: "msg_2c7Yq9Vb1Kx4Lm8Rt3Np6w",
  eventType: "access.ended",
  status: "delivered",
  attempts: 2,
  createdAt: "2026-11-27T10:00:00.000Z",
  lastAttemptAt: "2026-11-27T10:00:05.310Z",
  nextAttemptAt: null,
  responseCode: 200,
  latencyMs: 84,
  error: null,
  attemptLog: [
    {
      attempt: 1,
      at: "2026-11-27T10:00:00.120Z",
      responseCode: 503,
      latencyMs: 97,
      error: null,
    },
    { attempt: 2, at: "2026-11-27T10:00:05.310Z", responseCode: 200, latencyMs: 84, error: null },
  ],
};

export const queuedWebhookDeliveryExample = {
  eventId: "msg_2c7Yq9Vb1Kx4Lm8Rt3Np6w",
  deliveryId: "a3e1f0c2-7b6d-4e59-8c14-2d9f6b0a1e37",
};
