import { normalizeEmail } from "../../lib/mail/address";
import { timingSafeEqualString } from "../../lib/crypto/constant-time";
import { db, type Prisma } from "../../lib/db/client";
import { openStoredOrNull, sealForStorage } from "../../lib/demo/secrets";
import { getEnv, type Env } from "../../lib/env";
import { generateClientSecret, hashClientSecret } from "../../lib/keys/client-credentials";
import { claimPartnerName, NAME_KEYS_VERSION } from "../../lib/partners/name-keys";
import { parseRedirectUris } from "../../lib/partners/redirect-uris";

/**
 * The demo partner (`npm run dev` seeds a demo partner and
 * client, see README.md). Idempotent: every run converges on one partner "Demo Budget App"
 * owned by demo@example.com, with one client `obc_demo_budget_app` whose only
 * redirect URI is {issuer}/demo/callback.
 *
 * The client's secret is random per installation: the first seed makes it,
 * the Client row keeps only its keyed hash like every client's, and the demo
 * partner (which must present it to the token endpoint) gets it sealed in
 * DemoClientSecret. Later seeds keep it while it still opens and matches the
 * client's hash; after SECRET_KEY changed, or the secret was rotated by
 * hand, they make a new one. It is returned, for the development banner, only
 * in development and tests: a production build never prints it.
 */

export const DEMO_PARTNER_NAME = "Demo Budget App";
export const DEMO_OWNER_EMAIL = "demo@example.com";
export const DEMO_CLIENT_ID = "obc_demo_budget_app";
export const DEMO_CALLBACK_PATH = "/demo/callback";

export interface DemoSeed {
  partnerId: string;
  clientId: string;
  /** Null in a production build and in production mode, where the demo secret is never shown. */
  clientSecret: string | null;
  redirectUri: string;
}

/** Only development and tests on a loopback issuer may show the demo client's secret. */
export const showsDemoSecret = (env: Pick<Env, "mode" | "nodeEnv">) =>
  env.mode === "local" && env.nodeEnv !== "production";

/** Serializes concurrent seeds (launcher and e2e server on one database). */
const SEED_LOCK_KEY = 0x5eed_de30;

type Tx = Prisma.TransactionClient;

export async function seedDemo(): Promise<DemoSeed> {
  const env = getEnv();
  const redirectUri = toDemoRedirectUri(env.issuer);
  return db().$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`;
      const ownerId = await ensureDemoOwner(tx);
      const partnerId = await ensureDemoPartner(tx, ownerId);
      const secret = await ensureDemoClient(tx, { partnerId, redirectUri });
      const clientSecret = showsDemoSecret(env) ? secret : null;
      return { partnerId, clientId: DEMO_CLIENT_ID, clientSecret, redirectUri };
    },
    { maxWait: 15_000, timeout: 30_000 },
  );
}

/** {issuer}/demo/callback, checked by docs/protocol.md#redirect-uris like any other redirect URI. */
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
    data: { name: DEMO_PARTNER_NAME, nameKeysVersion: NAME_KEYS_VERSION },
    select: { id: true, name: true },
  });
  // Nobody else signs up or displays a name like the demo partner's.
  await claimPartnerName(tx, partner);
  return partner.id;
}

/** The demo's sealed secret, while it opens under this SECRET_KEY and matches the client's hash. */
async function findKeptSecret(tx: Tx, secretHash: string | undefined): Promise<string | null> {
  const stored = await tx.demoClientSecret.findUnique({ where: { clientId: DEMO_CLIENT_ID } });
  const secret = stored ? openStoredOrNull(stored.secretEnc) : null;
  if (!secret) return null;
  if (secretHash !== undefined && !timingSafeEqualString(secretHash, hashClientSecret(secret))) {
    return null;
  }
  return secret;
}

/** Converges the demo client; returns its secret (kept, or new and sealed for the demo). */
async function ensureDemoClient(
  tx: Tx,
  wanted: { partnerId: string; redirectUri: string },
): Promise<string> {
  const existing = await tx.client.findUnique({ where: { id: DEMO_CLIENT_ID } });
  const kept = await findKeptSecret(tx, existing?.secretHash);
  const secret = kept ?? generateClientSecret();
  if (!kept) {
    const secretEnc = sealForStorage(secret);
    await tx.demoClientSecret.upsert({
      where: { clientId: DEMO_CLIENT_ID },
      create: { clientId: DEMO_CLIENT_ID, secretEnc },
      update: { secretEnc, createdAt: new Date() },
    });
  }
  const fields = {
    partnerId: wanted.partnerId,
    name: DEMO_PARTNER_NAME,
    redirectUris: [wanted.redirectUri],
  };
  const secretHash = hashClientSecret(secret);
  if (!existing) {
    await tx.client.create({ data: { id: DEMO_CLIENT_ID, ...fields, secretHash } });
    return secret;
  }
  const upToDate =
    kept !== null &&
    existing.partnerId === fields.partnerId &&
    existing.name === fields.name &&
    existing.redirectUris.length === 1 &&
    existing.redirectUris[0] === wanted.redirectUri;
  if (!upToDate) {
    await tx.client.update({ where: { id: DEMO_CLIENT_ID }, data: { ...fields, secretHash } });
  }
  return secret;
}
