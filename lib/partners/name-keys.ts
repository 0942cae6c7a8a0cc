import unhomoglyph from "unhomoglyph";
import { db, type Prisma } from "../db/client";
import { lockPartnerRow } from "../db/queries/locks";
import { log } from "../log";
import { normalizeNameText } from "./names";

/**
 * Look-alike partner names (docs/partner-signup.md#look-alike-names). People
 * know a partner by the name the consent screen and the sign-in mail show:
 * its branding display name, else its name. No two partners may be shown by
 * names that look the same, so each name is reduced to a key that is equal
 * for names a reader cannot tell apart, and the keys are held in
 * `PartnerNameKey`, whose primary key is the key: a second partner's claim of
 * a held key is refused by the database itself, however the requests
 * interleave.
 *
 * The key is the confusable skeleton of Unicode Technical Standard #39
 * (§4): NFD, each character replaced by its prototype in the Unicode
 * confusables table, NFD again. The table is the one the `unhomoglyph`
 * package ships (confusables.txt, one mapping per character). Names are
 * compared without case, but the skeleton is taken first, on the name as
 * typed: a capital I and a small l look alike. Because the table sends a
 * capital I to l, the same name in capitals would then differ from it in
 * small letters wherever it has an i; so after lowering, i and l are one
 * letter of the key ("VIP PAY" and "Vip Pay" hold the same key).
 */

/** Bump when the key changes (another table, another rule): keys are made again at start. */
export const NAME_KEYS_VERSION = 2;

/** The confusable skeleton of `text` (UTS #39 §4). */
export function skeleton(text: string): string {
  return unhomoglyph(text.normalize("NFD")).normalize("NFD");
}

/**
 * The look-alike key of a name: equal for names that look the same,
 * whatever their case, their white space or their compatibility forms.
 */
export function nameKey(name: string): string {
  const normalized = normalizeNameText(name);
  const text = normalized.ok ? normalized.text : name;
  // Lower case after the skeleton, then the skeleton of what lowering made.
  return skeleton(skeleton(text).toLowerCase()).replaceAll("i", "l").replace(/\s+/gu, " ").trim();
}

export type NameField = "name" | "displayName";

type Tx = Prisma.TransactionClient;

/**
 * Claims `key` for the partner: true when the partner holds it afterwards.
 * INSERT … ON CONFLICT DO NOTHING, then a read: a concurrent claim of the
 * same key waits for this one's transaction and then finds the key held.
 */
async function claim(tx: Tx, partnerId: string, key: string, field: NameField): Promise<boolean> {
  await tx.partnerNameKey.createMany({ data: [{ key, partnerId, field }], skipDuplicates: true });
  const holder = await tx.partnerNameKey.findUnique({
    where: { key },
    select: { partnerId: true },
  });
  return holder?.partnerId === partnerId;
}

/** Claims the key of a new partner's name: false when another partner holds it. */
export function claimPartnerName(tx: Tx, partner: { id: string; name: string }) {
  return claim(tx, partner.id, nameKey(partner.name), "name");
}

/**
 * Claims the key of the partner's branding display name, releasing the one
 * it held before; null clears it. A display name that looks like the
 * partner's own name is always the partner's. False when another partner's
 * name or display name looks the same (call it under the partner's row lock).
 */
export async function claimDisplayName(
  tx: Tx,
  partner: { id: string; name: string },
  displayName: string | null,
): Promise<boolean> {
  const key = displayName === null ? null : nameKey(displayName);
  await tx.partnerNameKey.deleteMany({
    where: {
      partnerId: partner.id,
      field: "displayName",
      ...(key === null ? {} : { key: { not: key } }),
    },
  });
  if (key === null || key === nameKey(partner.name)) return true;
  return claim(tx, partner.id, key, "displayName");
}

/** A display name that looks like another partner's name: the change is rolled back. */
export class NameTakenError extends Error {
  constructor() {
    super("the display name looks the same as another partner's name");
    this.name = "NameTakenError";
  }
}

/**
 * Makes the keys of partners from before them (or from an older version of
 * them), oldest partner first, so an earlier partner keeps a name a later
 * one shares. Run when the service starts, before it serves; safe to run
 * from several processes at once (each partner under its row lock). A later
 * partner whose name or display name looks like an earlier one's holds no
 * key for it and is logged for the operator (`partner.name_look_alike`).
 */
export async function makeMissingNameKeys(): Promise<{ partners: number; lookAlikes: number }> {
  let partners = 0;
  let lookAlikes = 0;
  for (;;) {
    const batch = await db().partner.findMany({
      where: { nameKeysVersion: { lt: NAME_KEYS_VERSION } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true },
      take: 100,
    });
    if (batch.length === 0) return { partners, lookAlikes };
    for (const { id } of batch) {
      const shared = await db().$transaction(async (tx) => {
        if (!(await lockPartnerRow(tx, id))) return [];
        const partner = await tx.partner.findUniqueOrThrow({
          where: { id },
          select: { name: true, displayName: true, nameKeysVersion: true },
        });
        if (partner.nameKeysVersion >= NAME_KEYS_VERSION) return [];
        await tx.partnerNameKey.deleteMany({ where: { partnerId: id } });
        const sharedFields: NameField[] = [];
        if (!(await claimPartnerName(tx, { id, name: partner.name }))) sharedFields.push("name");
        if (partner.displayName !== null) {
          const held = await claimDisplayName(tx, { id, name: partner.name }, partner.displayName);
          if (!held) sharedFields.push("displayName");
        }
        await tx.partner.update({ where: { id }, data: { nameKeysVersion: NAME_KEYS_VERSION } });
        return sharedFields;
      });
      partners += 1;
      if (shared.length > 0) {
        lookAlikes += 1;
        log.warn("partner.name_look_alike", { partner_id: id, fields: shared });
      }
    }
  }
}
