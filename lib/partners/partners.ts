import { type AuditContext, SYSTEM_AUDIT } from "../audit/events";
import { recordOwnerAdded, recordPartnerCreated, recordPartnerStatus } from "../audit/partners";
import { emailSchema } from "../mail/address";
import { db, Prisma } from "../db/client";
import type { PartnerStatus } from "../db/generated/client";
import { parseRegisteredDomain } from "./domains";
import { PartnerError } from "./errors";
import { claimPartnerName, NAME_KEYS_VERSION } from "./name-keys";
import { parseName } from "./names";

/**
 * Partners and their owners (docs/architecture.md#domain-model). The owner
 * is a User found or created by normalized email.
 */

export interface PartnerSummary {
  id: string;
  name: string;
  status: PartnerStatus;
  /** The pinned registered domain (lib/partners/domains.ts), or null. */
  registeredDomain: string | null;
  ownerEmails: string[];
  clientCount: number;
  createdAt: Date;
}

const summaryInclude = {
  owners: { include: { user: { select: { email: true } } }, orderBy: { createdAt: "asc" } },
  _count: { select: { clients: true } },
} as const;

/**
 * Creates a partner with its first owner. This and the status and owner
 * changes below are recorded in the audit log in the same transaction, as
 * `audit`'s actor (the service's own when none is given). The name is
 * normalized and its look-alike key claimed (lib/partners/name-keys.ts), so
 * nobody signs up or displays a name like it. The operator is trusted with
 * the names they give: one that looks like another partner's is not
 * refused; it holds no key of its own (the earlier partner's covers it).
 */
export async function createPartner(
  input: { name: string; ownerEmail: string },
  audit: AuditContext = SYSTEM_AUDIT,
): Promise<PartnerSummary> {
  const name = parseName(input.name, "partner");
  const email = parseOwnerEmail(input.ownerEmail);
  const partner = await db().$transaction(async (tx) => {
    const created = await tx.partner.create({
      data: {
        name,
        nameKeysVersion: NAME_KEYS_VERSION,
        owners: {
          create: { user: { connectOrCreate: { where: { email }, create: { email } } } },
        },
      },
      include: summaryInclude,
    });
    await claimPartnerName(tx, created);
    await recordPartnerCreated(tx, { id: created.id, name, ownerEmail: email }, audit);
    return created;
  });
  return toPartnerSummary(partner);
}

export async function listPartners(): Promise<PartnerSummary[]> {
  const partners = await db().partner.findMany({
    include: summaryInclude,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return partners.map(toPartnerSummary);
}

/**
 * Pins the registered domain the partner's branding links must sit under
 * (docs/protocol.md#branding), or clears it with null or a blank value.
 */
export async function setRegisteredDomain(
  partnerId: string,
  rawDomain: string | null,
): Promise<PartnerSummary> {
  const registeredDomain = rawDomain === null ? null : parseRegisteredDomain(rawDomain);
  return updatePartner(partnerId, { registeredDomain });
}

/**
 * Suspends or resumes a partner (docs/partner-suspension.md). While
 * suspended, every authorization of its clients is refused with
 * temporarily_unavailable (lib/oauth/authorize.ts), its clients get no API
 * key (unauthorized_client) and its keys read nothing (403 partner_suspended);
 * revocation keeps working. Nothing is deleted, so resuming restores it all.
 * Setting the status it already has is a no-op.
 */
export async function setPartnerStatus(
  partnerId: string,
  status: PartnerStatus,
  audit: AuditContext = SYSTEM_AUDIT,
): Promise<PartnerSummary> {
  if (!isUuid(partnerId)) throw unknownPartner(partnerId);
  await db().$transaction(async (tx) => {
    // Conditional on the other status, so only a real change is recorded, once.
    const { count } = await tx.partner.updateMany({
      where: { id: partnerId, status: { not: status } },
      data: { status },
    });
    if (count === 1) await recordPartnerStatus(tx, partnerId, status, audit);
  });
  return assertPartnerSummary(partnerId);
}

/**
 * Makes the user with this email (normalized; created if new) an owner of the
 * partner. Idempotent: an existing owner stays one, and `added` says whether
 * the row is new. Safe under concurrency (ON CONFLICT DO NOTHING on both the
 * user's unique email and the owner pair).
 */
export async function addPartnerOwner(
  partnerId: string,
  rawEmail: string,
  audit: AuditContext = SYSTEM_AUDIT,
): Promise<{ partner: PartnerSummary; ownerEmail: string; added: boolean }> {
  const email = parseOwnerEmail(rawEmail);
  const { id } = await assertPartnerExists(partnerId);
  try {
    const added = await db().$transaction(async (tx) => {
      await tx.user.createMany({ data: [{ email }], skipDuplicates: true });
      const user = await tx.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
      const { count } = await tx.partnerOwner.createMany({
        data: [{ partnerId: id, userId: user.id }],
        skipDuplicates: true,
      });
      if (count === 1) {
        await recordOwnerAdded(tx, { partnerId: id, userId: user.id, email }, audit);
      }
      return count === 1;
    });
    return { partner: await assertPartnerSummary(id), ownerEmail: email, added };
  } catch (error) {
    // The partner was deleted after the check above.
    if (isPrismaError(error, "P2003")) throw unknownPartner(partnerId, error);
    throw error;
  }
}

/** The partner, or null when the id is unknown (or not even a UUID). */
export async function findPartner(partnerId: string): Promise<{ id: string; name: string } | null> {
  if (!isUuid(partnerId)) return null;
  return db().partner.findUnique({ where: { id: partnerId }, select: { id: true, name: true } });
}

export async function assertPartnerExists(
  partnerId: string,
): Promise<{ id: string; name: string }> {
  const partner = await findPartner(partnerId);
  if (!partner) throw unknownPartner(partnerId);
  return partner;
}

export function unknownPartner(partnerId: string, cause?: unknown): PartnerError {
  return new PartnerError(
    "unknown_partner",
    `no partner with id ${JSON.stringify(partnerId)}`,
    [],
    { cause },
  );
}

async function updatePartner(
  partnerId: string,
  data: Prisma.PartnerUpdateInput,
): Promise<PartnerSummary> {
  if (!isUuid(partnerId)) throw unknownPartner(partnerId);
  try {
    const partner = await db().partner.update({
      where: { id: partnerId },
      data,
      include: summaryInclude,
    });
    return toPartnerSummary(partner);
  } catch (error) {
    if (isPrismaError(error, "P2025")) throw unknownPartner(partnerId, error);
    throw error;
  }
}

async function assertPartnerSummary(partnerId: string): Promise<PartnerSummary> {
  const partner = await db().partner.findUnique({
    where: { id: partnerId },
    include: summaryInclude,
  });
  if (!partner) throw unknownPartner(partnerId);
  return toPartnerSummary(partner);
}

function isPrismaError(error: unknown, code: string): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === code;
}

function parseOwnerEmail(raw: string): string {
  const result = emailSchema.safeParse(raw);
  if (!result.success) {
    const reason = result.error.issues[0]?.message ?? "is not a valid email address";
    throw new PartnerError(
      "invalid_email",
      `the owner email ${JSON.stringify(raw.trim())} ${reason}`,
    );
  }
  return result.data;
}

/** Partner ids are PostgreSQL UUIDs; anything else cannot name a partner. */
function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

type PartnerWithSummary = {
  id: string;
  name: string;
  status: PartnerStatus;
  registeredDomain: string | null;
  createdAt: Date;
  owners: { user: { email: string } }[];
  _count: { clients: number };
};

function toPartnerSummary(partner: PartnerWithSummary): PartnerSummary {
  return {
    id: partner.id,
    name: partner.name,
    status: partner.status,
    registeredDomain: partner.registeredDomain,
    ownerEmails: partner.owners.map((owner) => owner.user.email),
    clientCount: partner._count.clients,
    createdAt: partner.createdAt,
  };
}
