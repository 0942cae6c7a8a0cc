import type { AuditContext } from "../audit/events";
import { recordAuditEvent } from "../audit/record";
import { db, type Prisma } from "../db/client";
import { isUuid } from "../db/uuid";
import { readWrappedKey, wrappedPublicKey, wrapsKey } from "./wrapped-key";
import { lockUserRow } from "../db/queries/locks";

/**
 * A person's passkeys on "My access" (docs/account.md#passkeys): listed,
 * removed, and given the key. The rule that guards the key: a passkey that is
 * the only holder of the person's key is not removed while no passphrase
 * backup of that key was confirmed (`User.keyBackupAt`), since removing it
 * would leave no way back to the key but this browser.
 */

export interface PasskeyListItem {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** A synced passkey (multi-device credential). */
  synced: boolean;
  /** It holds the person's registered key. */
  holdsKey: boolean;
  /** Removing it is allowed (false: it is the last holder of the key and no backup was saved). */
  removable: boolean;
}

type HolderRow = { id: string; wrappedKey: string | null };

/** Whether removing `passkey` would leave the key without any way back the service knows of. */
function isLastKeyHolder(
  passkey: HolderRow,
  all: HolderRow[],
  user: { publicKey: string | null; keyBackupAt: Date | null },
): boolean {
  if (user.keyBackupAt !== null || !wrapsKey(passkey.wrappedKey, user.publicKey)) return false;
  return all.every(
    (other) => other.id === passkey.id || !wrapsKey(other.wrappedKey, user.publicKey),
  );
}

export async function listPasskeys(userId: string): Promise<{
  passkeys: PasskeyListItem[];
  keyBackupAt: Date | null;
}> {
  const user = await db().user.findUniqueOrThrow({
    where: { id: userId },
    select: {
      publicKey: true,
      keyBackupAt: true,
      passkeys: { orderBy: [{ createdAt: "desc" }, { id: "asc" }] },
    },
  });
  return {
    keyBackupAt: user.keyBackupAt,
    passkeys: user.passkeys.map((passkey) => ({
      id: passkey.id,
      name: passkey.name,
      createdAt: passkey.createdAt.toISOString(),
      lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
      synced: passkey.deviceType === "multiDevice",
      holdsKey: wrapsKey(passkey.wrappedKey, user.publicKey),
      removable: !isLastKeyHolder(passkey, user.passkeys, user),
    })),
  };
}

/** Locks the user's row for the rest of the transaction: one change of their passkeys at a time. */
async function lockUser(tx: Prisma.TransactionClient, userId: string) {
  await lockUserRow(tx, userId);
  return tx.user.findUniqueOrThrow({
    where: { id: userId },
    select: {
      publicKey: true,
      keyBackupAt: true,
      passkeys: { select: { id: true, wrappedKey: true, deviceType: true } },
    },
  });
}

export type RemoveResult = "removed" | "not_found" | "last_key_holder";

/**
 * Removes one of the user's passkeys. Under the user's row lock, so two
 * removals at once (two tabs) cannot each leave the other as the last holder
 * and then both go.
 */
export function removePasskey(input: {
  userId: string;
  passkeyId: string;
  audit: AuditContext;
}): Promise<RemoveResult> {
  if (!isUuid(input.passkeyId)) return Promise.resolve("not_found");
  return db().$transaction(async (tx) => {
    const user = await lockUser(tx, input.userId);
    const passkey = user.passkeys.find((candidate) => candidate.id === input.passkeyId);
    if (!passkey) return "not_found";
    if (isLastKeyHolder(passkey, user.passkeys, user)) return "last_key_holder";
    await tx.passkey.delete({ where: { id: passkey.id } });
    await recordAuditEvent(tx, {
      type: "passkey.removed",
      context: input.audit,
      userId: input.userId,
      details: {
        synced: passkey.deviceType === "multiDevice",
        heldKey: wrapsKey(passkey.wrappedKey, user.publicKey),
      },
    });
    return "removed";
  });
}

export type SetKeyResult =
  "stored" | "not_found" | "invalid_wrapped_key" | "key_mismatch" | "key_held";

/**
 * Gives a passkey of the user the key, wrapped in the browser with that
 * passkey's PRF output: only the user's registered key, and never over a
 * wrapped key that already holds it (a stale tab must not spoil a working one).
 */
export function setPasskeyKey(input: {
  userId: string;
  passkeyId: string;
  wrappedKey: unknown;
}): Promise<SetKeyResult> {
  const wrappedKey = readWrappedKey(input.wrappedKey);
  if (!isUuid(input.passkeyId)) return Promise.resolve("not_found");
  return db().$transaction(async (tx) => {
    const user = await lockUser(tx, input.userId);
    const passkey = user.passkeys.find((candidate) => candidate.id === input.passkeyId);
    if (!passkey) return "not_found";
    if (!wrappedKey) return "invalid_wrapped_key";
    if (user.publicKey === null || wrappedPublicKey(wrappedKey) !== user.publicKey) {
      return "key_mismatch";
    }
    if (wrapsKey(passkey.wrappedKey, user.publicKey)) return "key_held";
    await tx.passkey.update({ where: { id: passkey.id }, data: { wrappedKey } });
    return "stored";
  });
}

/** One of the user's passkeys holds `publicKey`'s private key. */
export async function isHeldByPasskey(
  tx: Pick<Prisma.TransactionClient, "passkey">,
  userId: string,
  publicKey: string,
): Promise<boolean> {
  const holders = await tx.passkey.findMany({
    where: { userId, wrappedKey: { not: null } },
    select: { wrappedKey: true },
  });
  return holders.some((passkey) => wrapsKey(passkey.wrappedKey, publicKey));
}

/**
 * After a key is registered (a first setup): the passkeys that wrap another
 * key (made earlier in a setup that another tab overtook) hold nothing.
 */
export async function dropOtherWrappedKeys(
  tx: Prisma.TransactionClient,
  userId: string,
  publicKey: string,
): Promise<void> {
  const holders = await tx.passkey.findMany({
    where: { userId, wrappedKey: { not: null } },
    select: { id: true, wrappedKey: true },
  });
  const stale = holders.filter((passkey) => !wrapsKey(passkey.wrappedKey, publicKey));
  if (stale.length > 0) {
    await tx.passkey.updateMany({
      where: { id: { in: stale.map((passkey) => passkey.id) } },
      data: { wrappedKey: null },
    });
  }
}
