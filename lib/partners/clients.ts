import { db, Prisma } from "../db/client";
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
 * Connect clients (DESIGN.md §4 Client). A client belongs to a partner, or to
 * no one (a house client). Its secret is shown once and only its keyed hash is
 * stored (DESIGN.md §8).
 */

export interface ClientSummary {
  id: string;
  /** Null for a house client. */
  partnerId: string | null;
  name: string;
  redirectUris: string[];
  createdAt: Date;
  /** When the secret before the last rotation stops working (SPEC 5.2). */
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

/** Creates a client; the returned secret is the only time it is ever shown. */
export async function createClient(
  input: CreateClientInput,
): Promise<{ client: ClientSummary; clientSecret: string }> {
  const redirectUris = assertRedirectUris(input.redirectUris);
  const id = input.id === undefined ? generateClientId() : assertClientIdAllowed(input.id);
  const partner =
    input.partnerId === undefined || input.partnerId === null
      ? null
      : await assertPartnerExists(input.partnerId);
  const name = parseName(input.name ?? partner?.name ?? HOUSE_CLIENT_NAME, "client");
  await assertClientIdFree(id);
  const clientSecret = generateClientSecret();
  try {
    const client = await db().client.create({
      data: {
        id,
        partnerId: partner?.id ?? null,
        name,
        redirectUris,
        secretHash: hashClientSecret(clientSecret),
      },
    });
    return { client: toClientSummary(client), clientSecret };
  } catch (error) {
    throw toCreateClientError(error, id, input.partnerId ?? null);
  }
}

/**
 * SPEC 5.2 rotation: a new secret becomes current and the old one keeps
 * working for 24 hours. The update is conditional on the hash read, so two
 * concurrent rotations cannot both claim to have moved the same secret.
 */
export async function rotateClientSecret(
  clientId: string,
  now: Date = new Date(),
): Promise<{ clientId: string; clientSecret: string; previousSecretExpiresAt: Date }> {
  const current = await db().client.findUnique({
    where: { id: clientId },
    select: { secretHash: true },
  });
  if (!current) throw unknownClient(clientId);
  const clientSecret = generateClientSecret();
  const hashes = toRotatedSecretHashes(current.secretHash, clientSecret, now);
  const { count } = await db().client.updateMany({
    where: { id: clientId, secretHash: current.secretHash },
    data: hashes,
  });
  if (count !== 1) {
    throw new PartnerError(
      "conflict",
      `the secret of client ${clientId} changed during the rotation; try again`,
    );
  }
  return { clientId, clientSecret, previousSecretExpiresAt: hashes.previousSecretExpiresAt };
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

/** SPEC 8.3, with every problem listed in `details`. */
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
