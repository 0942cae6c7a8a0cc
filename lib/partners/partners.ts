import { emailSchema } from "../auth/email";
import { db } from "../db/client";
import type { PartnerStatus } from "../db/generated/client";
import { PartnerError } from "./errors";
import { parseName } from "./names";

/**
 * Partners and their owners (DESIGN.md §4 Partner, PartnerOwner). The owner
 * is a User found or created by normalized email.
 */

export interface PartnerSummary {
  id: string;
  name: string;
  status: PartnerStatus;
  ownerEmails: string[];
  clientCount: number;
  createdAt: Date;
}

const summaryInclude = {
  owners: { include: { user: { select: { email: true } } }, orderBy: { createdAt: "asc" } },
  _count: { select: { clients: true } },
} as const;

export async function createPartner(input: {
  name: string;
  ownerEmail: string;
}): Promise<PartnerSummary> {
  const name = parseName(input.name, "partner");
  const email = parseOwnerEmail(input.ownerEmail);
  const partner = await db().partner.create({
    data: {
      name,
      owners: {
        create: { user: { connectOrCreate: { where: { email }, create: { email } } } },
      },
    },
    include: summaryInclude,
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
  createdAt: Date;
  owners: { user: { email: string } }[];
  _count: { clients: number };
};

function toPartnerSummary(partner: PartnerWithSummary): PartnerSummary {
  return {
    id: partner.id,
    name: partner.name,
    status: partner.status,
    ownerEmails: partner.owners.map((owner) => owner.user.email),
    clientCount: partner._count.clients,
    createdAt: partner.createdAt,
  };
}
