import { createHmac } from "node:crypto";
import { normalizeEmail } from "../../lib/auth/email";
import { timingSafeEqualString } from "../../lib/crypto/constant-time";
import { db, type Prisma } from "../../lib/db/client";
import { getEnv } from "../../lib/env";
import {
  CLIENT_SECRET_PREFIX,
  generateClientSecret,
  hashClientSecret,
} from "../../lib/keys/client-credentials";
import { parseRedirectUris } from "../../lib/partners/redirect-uris";

/**
 * The demo partner (DESIGN.md §3: `npm run dev` seeds a demo partner and
 * client). Idempotent: every run converges on one partner "Demo Budget App"
 * owned by demo@example.com, with one client `obc_demo_budget_app` whose only
 * redirect URI is {issuer}/demo/callback.
 *
 * In local mode the secret is derived from SECRET_KEY, so it is the same on
 * every start and can be printed; a run after SECRET_KEY changed repairs the
 * stored hash. In production mode the secret is random, set once, never
 * printed (clientSecret is null): rotate it with the admin CLI to get one.
 */

export const DEMO_PARTNER_NAME = "Demo Budget App";
export const DEMO_OWNER_EMAIL = "demo@example.com";
export const DEMO_CLIENT_ID = "obc_demo_budget_app";
export const DEMO_CALLBACK_PATH = "/demo/callback";

export interface DemoSeed {
  partnerId: string;
  clientId: string;
  /** Null in production mode, where the demo secret is never shown. */
  clientSecret: string | null;
  redirectUri: string;
}

/** Serializes concurrent seeds (launcher and e2e server on one database). */
const SEED_LOCK_KEY = 0x5eed_de30;

type Tx = Prisma.TransactionClient;

export async function seedDemo(): Promise<DemoSeed> {
  const env = getEnv();
  const redirectUri = toDemoRedirectUri(env.issuer);
  const derived = toDemoClientSecret(env.secretKey);
  // Shown only in local mode; stored wherever /demo runs, since the demo derives it too.
  const clientSecret = env.mode === "local" ? derived : null;
  const storedSecret = env.mode === "local" || env.demoEnabled ? derived : null;
  return db().$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`;
      const ownerId = await ensureDemoOwner(tx);
      const partnerId = await ensureDemoPartner(tx, ownerId);
      await ensureDemoClient(tx, { partnerId, redirectUri, clientSecret: storedSecret });
      return { partnerId, clientId: DEMO_CLIENT_ID, clientSecret, redirectUri };
    },
    { maxWait: 15_000, timeout: 30_000 },
  );
}

/** HMAC(SECRET_KEY, "demo-client-secret"), base64url, with the secret prefix. */
export function toDemoClientSecret(secretKey: string): string {
  return (
    CLIENT_SECRET_PREFIX +
    createHmac("sha256", secretKey).update("demo-client-secret").digest("base64url")
  );
}

/** {issuer}/demo/callback, checked against SPEC 8.3 like any other redirect URI. */
export function toDemoRedirectUri(issuer: string): string {
  const uri = `${issuer.replace(/\/+$/, "")}${DEMO_CALLBACK_PATH}`;
  const result = parseRedirectUris([uri]);
  if (!result.success) {
    throw new Error(
      `the demo redirect URI is invalid: ${result.problems.map((p) => p.message).join("; ")}`,
    );
  }
  return uri;
}

async function ensureDemoOwner(tx: Tx): Promise<string> {
  const email = normalizeEmail(DEMO_OWNER_EMAIL);
  const user = await tx.user.upsert({
    where: { email },
    create: { email },
    update: {},
    select: { id: true },
  });
  return user.id;
}

/** The demo client's partner if it has one, else a partner of that name owned by the demo user. */
async function ensureDemoPartner(tx: Tx, ownerId: string): Promise<string> {
  const partnerId = (await findDemoPartnerId(tx, ownerId)) ?? (await createDemoPartnerId(tx));
  await tx.partnerOwner.upsert({
    where: { partnerId_userId: { partnerId, userId: ownerId } },
    create: { partnerId, userId: ownerId },
    update: {},
  });
  return partnerId;
}

async function findDemoPartnerId(tx: Tx, ownerId: string): Promise<string | null> {
  const client = await tx.client.findUnique({
    where: { id: DEMO_CLIENT_ID },
    select: { partnerId: true },
  });
  if (client?.partnerId) return client.partnerId;
  const partner = await tx.partner.findFirst({
    where: { name: DEMO_PARTNER_NAME, owners: { some: { userId: ownerId } } },
    orderBy: { createdAt: "asc" },
    select: { id: true },
  });
  return partner?.id ?? null;
}

async function createDemoPartnerId(tx: Tx): Promise<string> {
  const partner = await tx.partner.create({
    data: { name: DEMO_PARTNER_NAME },
    select: { id: true },
  });
  return partner.id;
}

async function ensureDemoClient(
  tx: Tx,
  wanted: { partnerId: string; redirectUri: string; clientSecret: string | null },
): Promise<void> {
  const existing = await tx.client.findUnique({ where: { id: DEMO_CLIENT_ID } });
  const fields = {
    partnerId: wanted.partnerId,
    name: DEMO_PARTNER_NAME,
    redirectUris: [wanted.redirectUri],
  };
  if (!existing) {
    const secretHash = hashClientSecret(wanted.clientSecret ?? generateClientSecret());
    await tx.client.create({ data: { id: DEMO_CLIENT_ID, ...fields, secretHash } });
    return;
  }
  const secretHash =
    wanted.clientSecret === null ? existing.secretHash : hashClientSecret(wanted.clientSecret);
  const upToDate =
    existing.partnerId === fields.partnerId &&
    existing.name === fields.name &&
    existing.redirectUris.length === 1 &&
    existing.redirectUris[0] === wanted.redirectUri &&
    timingSafeEqualString(existing.secretHash, secretHash);
  if (!upToDate) {
    await tx.client.update({ where: { id: DEMO_CLIENT_ID }, data: { ...fields, secretHash } });
  }
}
