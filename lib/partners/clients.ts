import {
  recordClientCreated,
  recordClientDeleted,
  recordRedirectUrisChanged,
  recordSecretRotated,
} from "../audit/clients";
import { type AuditContext, SYSTEM_AUDIT } from "../audit/events";
import { db, Prisma } from "../db/client";
import { getEnv } from "../env";
import { lockClientRow } from "../db/queries/locks";
import {
  describeClientIdProblem,
  generateClientId,
  generateClientSecret,
  hashClientSecret,
  toRotatedSecretHashes,
} from "../keys/client-credentials";
import { PartnerError } from "./errors";
import { parseName } from "./names";
import { assertPartnerExists, unknownPartner } from "./partners";
import { parseRedirectUris } from "./redirect-uris";

/**
 * Connect clients (docs/architecture.md#domain-model). A client belongs to a partner, or to
 * no one (a house client). Its secret is shown once and only its keyed hash is
 * stored (docs/security.md).
 */

export interface ClientSummary {
  id: string;
  /** Null for a house client. */
  partnerId: string | null;
  name: string;
  redirectUris: string[];
  createdAt: Date;
  /** When the secret before the last rotation stops working (docs/protocol.md#client-authentication). */
  previousSecretExpiresAt: Date | null;
}

export interface CreateClientInput {
  /** Omitted or null: a house client. */
  partnerId?: string | null;
  redirectUris: readonly string[];
  /** Defaults to the partner's name, or "House client". */
  name?: string;
  /** A fixed id, for first-generation (legacy) clients; generated otherwise. */
  id?: string;
}

const HOUSE_CLIENT_NAME = "House client";

/**
 * Creates a client; the returned secret is the only time it is ever shown.
 * Every change to a client below is recorded in the audit log in the same
 * transaction, as `audit`'s actor (the service's own when none is given).
 */
export async function createClient(
  input: CreateClientInput,
  audit: AuditContext = SYSTEM_AUDIT,
): Promise<{ client: ClientSummary; clientSecret: string }> {
  const redirectUris = assertRedirectUris(input.redirectUris);
  const id = input.id === undefined ? generateClientId() : assertClientIdAllowed(input.id);
  const partner =
    input.partnerId === undefined || input.partnerId === null
      ? null
      : await assertPartnerExists(input.partnerId);
  if (partner) await assertRecipientKeyIfRequired(partner.id);
  const name = parseName(input.name ?? partner?.name ?? HOUSE_CLIENT_NAME, "client");
  await assertClientIdFree(id);
  const clientSecret = generateClientSecret();
  try {
    const client = await db().$transaction(async (tx) => {
      const created = await tx.client.create({
        data: {
          id,
          partnerId: partner?.id ?? null,
          name,
          redirectUris,
          secretHash: hashClientSecret(clientSecret),
        },
      });
      await recordClientCreated(tx, created, audit);
      return created;
    });
    return { client: toClientSummary(client), clientSecret };
  } catch (error) {
    throw toCreateClientError(error, id, input.partnerId ?? null);
  }
}

/**
 * Rotation (docs/protocol.md#client-authentication): a new secret becomes current and the old one keeps
 * working for 24 hours. The update is conditional on the hash read, so two
 * concurrent rotations cannot both claim to have moved the same secret.
 */
export async function rotateClientSecret(
  clientId: string,
  now: Date = new Date(),
  audit: AuditContext = SYSTEM_AUDIT,
): Promise<{ clientId: string; clientSecret: string; previousSecretExpiresAt: Date }> {
  const current = await db().client.findUnique({
    where: { id: clientId },
    select: { id: true, partnerId: true, secretHash: true },
  });
  if (!current) throw unknownClient(clientId);
  const clientSecret = generateClientSecret();
  const hashes = toRotatedSecretHashes(current.secretHash, clientSecret, now);
  await db().$transaction(async (tx) => {
    const { count } = await tx.client.updateMany({
      where: { id: clientId, secretHash: current.secretHash },
      data: hashes,
    });
    if (count !== 1) {
      throw new PartnerError(
        "conflict",
        `the secret of client ${clientId} changed during the rotation; try again`,
      );
    }
    await recordSecretRotated(tx, current, hashes.previousSecretExpiresAt, audit);
  });
  return { clientId, clientSecret, previousSecretExpiresAt: hashes.previousSecretExpiresAt };
}

/**
 * Renames a partner's client and/or replaces its redirect URIs (already
 * checked); null when the client is not that partner's.
 */
export async function updatePartnerClient(
  partnerId: string,
  clientId: string,
  changes: { name?: string; redirectUris?: string[] },
  audit: AuditContext,
): Promise<ClientSummary | null> {
  return db().$transaction(async (tx) => {
    if (!(await lockClientRow(tx, clientId))) return null;
    const before = await tx.client.findFirst({ where: { id: clientId, partnerId } });
    if (!before) return null;
    const updated = await tx.client.update({ where: { id: clientId }, data: changes });
    await recordRedirectUrisChanged(tx, updated, before.redirectUris, updated.redirectUris, audit);
    return toClientSummary(updated);
  });
}

/** Deletes a partner's client (its codes and API keys go with it); false when it is not that partner's. */
export async function deletePartnerClient(
  partnerId: string,
  clientId: string,
  audit: AuditContext,
): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const client = await tx.client.findFirst({
      where: { id: clientId, partnerId },
      select: { id: true, partnerId: true, name: true },
    });
    if (!client) return false;
    // A concurrent delete that won answers 0 here: exactly one of them records the event.
    const { count } = await tx.client.deleteMany({ where: { id: clientId, partnerId } });
    if (count === 0) return false;
    await recordClientDeleted(tx, client, audit);
    return true;
  });
}

/** The clients of a partner, or the house clients when `partnerId` is null. */
export async function listClients(partnerId: string | null): Promise<ClientSummary[]> {
  if (partnerId !== null) await assertPartnerExists(partnerId);
  const clients = await db().client.findMany({
    where: { partnerId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return clients.map(toClientSummary);
}

/** The redirect URI rules (docs/protocol.md#redirect-uris), with every problem listed in `details`. */
function assertRedirectUris(list: readonly string[]): string[] {
  const result = parseRedirectUris(list);
  if (result.success) return result.data;
  const details = result.problems.map((problem) => problem.message);
  const summary =
    details.length === 1 ? details[0] : `${details.length} problems: ${details.join("; ")}`;
  throw new PartnerError("invalid_redirect_uris", `invalid redirect URIs: ${summary}`, details);
}

function assertClientIdAllowed(id: string): string {
  const problem = describeClientIdProblem(id);
  if (problem)
    throw new PartnerError(
      "invalid_client_id",
      `invalid client id ${JSON.stringify(id)}: ${problem}`,
    );
  return id;
}

async function assertClientIdFree(id: string): Promise<void> {
  const existing = await db().client.findUnique({ where: { id }, select: { id: true } });
  if (existing) throw duplicateClientId(id);
}

function duplicateClientId(id: string, cause?: unknown): PartnerError {
  return new PartnerError(
    "duplicate_client_id",
    `a client with id ${JSON.stringify(id)} already exists`,
    [],
    {
      cause,
    },
  );
}

function unknownClient(clientId: string): PartnerError {
  return new PartnerError("unknown_client", `no client with id ${JSON.stringify(clientId)}`);
}

/** A lost race: the id was taken, or the partner deleted, after the checks above. */
function toCreateClientError(error: unknown, id: string, partnerId: string | null): unknown {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return error;
  if (error.code === "P2002") return duplicateClientId(id, error);
  if (error.code === "P2003" && partnerId !== null) {
    return unknownPartner(partnerId, error);
  }
  return error;
}

function toClientSummary(client: ClientSummary): ClientSummary {
  return {
    id: client.id,
    partnerId: client.partnerId,
    name: client.name,
    redirectUris: client.redirectUris,
    createdAt: client.createdAt,
    previousSecretExpiresAt: client.previousSecretExpiresAt,
  };
}

/**
 * With RECIPIENT_KEY_REQUIRED every authorization of a partner without a
 * recipient key is refused, so a client made for it could never be used:
 * refuse to make one, for the admin CLI and the dashboard alike. A house
 * client has no partner and no such key.
 */
async function assertRecipientKeyIfRequired(partnerId: string): Promise<void> {
  if (!getEnv().recipientKeyRequired) return;
  const partner = await db().partner.findUnique({
    where: { id: partnerId },
    select: { recipientPublicKey: true },
  });
  if (partner?.recipientPublicKey) return;
  throw new PartnerError(
    "recipient_key_required",
    "this service requires a recipient key (RECIPIENT_KEY_REQUIRED=true) and the partner has none: " +
      "install the partner's recipient key first (an owner signs in to the partner dashboard at " +
      `${getEnv().issuer}/dashboard and installs a decryption key), then create the client`,
  );
}
