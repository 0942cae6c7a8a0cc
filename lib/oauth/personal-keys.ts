import { recordClientCreated } from "../audit/clients";
import { type AuditContext, SYSTEM_AUDIT } from "../audit/events";
import { recordAuditEvent } from "../audit/record";
import { ensureTenant } from "../banking/tenants";
import { db, type Prisma } from "../db/client";
import { API_KEY_LIFETIME_SECONDS } from "../keys/api-keys";
import { generateClientSecret, hashClientSecret } from "../keys/client-credentials";
import { mintApiKey } from "../keys/mint";
import { lockUserRow } from "../db/queries/locks";

/**
 * Personal keys (docs/own-data.md): API keys a person holds for their own data,
 * not a partner's. They belong to a house client (a client of no partner, so
 * userinfo's `partner_id` is null) and read the person's own tenant
 * (`user:{id}`), sealed to their own key. Two house clients issue them: the
 * command-line client, whose sign-in (/auth/cli/start) hands its key to the
 * program on the person's computer, and "personal keys", made by hand on My
 * access for the person's own integrations. Their secrets are random and
 * thrown away at once, and they have no redirect URI: neither can take part
 * in a partner's authorization flow, and nobody can present them at the
 * token endpoint.
 *
 * Besides the five data operations every key may use, a personal key may
 * list the banks (`GET /api/aspsps`) and start connecting one
 * (`POST /api/authorizations`); a partner's key gets 403 there.
 */

export interface HouseClient {
  id: string;
  name: string;
}

/** The command-line client's sign-in (RFC 8252 loopback redirect). */
export const COMMAND_LINE_CLIENT: HouseClient = {
  id: "obc_command_line",
  name: "Command-line client",
};

/** Keys a person makes by hand on My access, for their own integrations. */
export const PERSONAL_KEYS_CLIENT: HouseClient = {
  id: "obc_personal_keys",
  name: "Personal keys",
};

/** The one scope every key has (/docs/data). */
export const PERSONAL_KEY_SCOPE = "accounts.read";

/** A key of a house client (no partner) is the person's own. */
export const isPersonalKey = (principal: { partnerId: string | null }): boolean =>
  principal.partnerId === null;

/**
 * The house client, created the first time it is needed (concurrent first
 * uses insert it once) and recorded as the service's own change.
 */
async function ensureHouseClient(tx: Prisma.TransactionClient, client: HouseClient) {
  const data = {
    id: client.id,
    partnerId: null,
    name: client.name,
    redirectUris: [],
    secretHash: hashClientSecret(generateClientSecret()),
  };
  const { count } = await tx.client.createMany({ data: [data], skipDuplicates: true });
  if (count === 1) await recordClientCreated(tx, data, SYSTEM_AUDIT);
}

export interface IssuedPersonalKey {
  id: string;
  apiKey: string;
  /** What the person sees of the key on My access. */
  prefix: string;
  expiresAt: Date;
  email: string;
}

/**
 * Issues a personal key to `userId` for their own tenant (made here if the
 * person has none yet), recorded as api_key.issued with the person as actor.
 * Runs in `tx`, so whatever consumes the request for it (a command-line
 * sign-in's code) commits with the key or not at all.
 */
export async function issuePersonalKey(
  tx: Prisma.TransactionClient,
  input: {
    userId: string;
    client: HouseClient;
    /** The person's name for a key made by hand; null for the command-line client's. */
    name: string | null;
    clientIp: string | null;
    now?: Date;
  },
): Promise<IssuedPersonalKey> {
  const now = input.now ?? new Date();
  // One issue at a time per person: the first one makes their tenant, which two at once would
  // race for. Taken before the house client's row, always in this order.
  await lockUserRow(tx, input.userId);
  await ensureHouseClient(tx, input.client);
  const user = await tx.user.findUniqueOrThrow({
    where: { id: input.userId },
    select: { id: true, email: true, publicKey: true },
  });
  const tenant = await ensureTenant(tx, { user, partner: null });
  const minted = mintApiKey(null);
  const expiresAt = new Date(now.getTime() + API_KEY_LIFETIME_SECONDS * 1000);
  await tx.apiKey.create({
    data: {
      id: minted.id,
      keyHash: minted.keyHash,
      prefix: minted.prefix,
      tenantId: tenant.id,
      clientId: input.client.id,
      scope: PERSONAL_KEY_SCOPE,
      createdAt: now,
      expiresAt,
      name: input.name,
    },
  });
  const context: AuditContext = { actor: { kind: "user", id: user.id }, clientIp: input.clientIp };
  await recordAuditEvent(tx, {
    type: "api_key.issued",
    context,
    partnerId: null,
    clientId: input.client.id,
    userId: user.id,
    subject: minted.prefix,
    details: { scope: PERSONAL_KEY_SCOPE },
    at: now,
  });
  return {
    id: minted.id,
    apiKey: minted.apiKey,
    prefix: minted.prefix,
    expiresAt,
    email: user.email,
  };
}

export interface PersonalKeyView {
  id: string;
  /** The person's name for it; null for the command-line client's keys. */
  name: string | null;
  /** The house client that issued it (COMMAND_LINE_CLIENT, PERSONAL_KEYS_CLIENT or another). */
  clientId: string;
  clientName: string;
  prefix: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

/** The person's live personal keys, oldest first. */
export async function listPersonalKeys(
  userId: string,
  now = new Date(),
): Promise<PersonalKeyView[]> {
  const keys = await db().apiKey.findMany({
    where: {
      tenant: { userId },
      revokedAt: null,
      expiresAt: { gt: now },
      client: { partnerId: null },
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: {
      id: true,
      name: true,
      clientId: true,
      prefix: true,
      createdAt: true,
      expiresAt: true,
      lastUsedAt: true,
      client: { select: { name: true } },
    },
  });
  return keys.map((key) => ({
    id: key.id,
    name: key.name,
    clientId: key.clientId,
    clientName: key.client.name,
    prefix: key.prefix,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  }));
}
