import { unwrapPrivateKey, type UserKeyPair, type WrappedKey } from "./browser-key";
import { openKeyBackup, type KeyBackup } from "./key-backup";
import type { PasskeyWrappedKey } from "./passkey-key";

/**
 * Where the browser keeps the user's key (IndexedDB, database "bank-connect",
 * docs/key-model.md):
 * - `keys`: the key in use, per user id: the encrypted backup itself (or, from
 *   browsers set up before backups were encrypted, the older wrapped form), or
 *   the key held by this browser's passkeys (wrapped to each one's PRF output,
 *   with the encrypted backup too when there is one).
 * - `setup`: a key being set up, per user id, with how far the setup got, so
 *   that a reload or Back resumes it instead of losing it.
 * - `tab-keys`: the per-tab keys of lib/keys/tab-unlock.ts.
 */

export type InstalledKey = KeyBackup | WrappedKey | PasskeyHeldKey;

export const PASSKEY_HELD_FORMAT = "bank-connect-passkey-key";

/** The key held by passkeys (lib/keys/passkey-key.ts): a tap unlocks it, no passphrase. */
export interface PasskeyHeldKey {
  format: typeof PASSKEY_HELD_FORMAT;
  /** Raw P-256 point, standard base64: the key the service has registered. */
  publicKey: string;
  /** The passkeys that open it, each with the key wrapped to its PRF output. */
  passkeys: { credentialId: string; wrapped: PasskeyWrappedKey }[];
  /** The passphrase-encrypted backup of the same key, when one was made. */
  backup: KeyBackup | null;
}

/** A stored key that only a passkey opens (no passphrase backup in this browser). */
export class PasskeyRequiredError extends Error {
  constructor() {
    super("this key is opened with a passkey");
    this.name = "PasskeyRequiredError";
  }
}

export interface PendingSetup {
  backup: KeyBackup;
  /** The backup file was downloaded at least once. */
  downloaded: boolean;
  /** The person confirmed the file is saved; only registering the key is left. */
  confirmed: boolean;
  /** Starting over: the registered key this one replaces. */
  replaces: string | null;
}

const DB_NAME = "bank-connect";
const DB_VERSION = 2;
export const STORES = { keys: "keys", setup: "setup", tabKeys: "tab-keys" } as const;
type StoreName = (typeof STORES)[keyof typeof STORES];

export function openKeyDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = () => {
      for (const name of Object.values(STORES)) {
        if (!request.result.objectStoreNames.contains(name)) {
          request.result.createObjectStore(name);
        }
      }
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Runs `work` in one transaction over `stores`; resolves when it has committed. */
export async function inTransaction<T>(
  stores: StoreName[],
  mode: IDBTransactionMode,
  work: (transaction: IDBTransaction) => IDBRequest<T> | void,
): Promise<T | undefined> {
  const database = await openKeyDatabase();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      const transaction = database.transaction(stores, mode);
      const request = work(transaction);
      transaction.oncomplete = () => resolve(request ? request.result : undefined);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  } finally {
    database.close();
  }
}

export const isKeyBackup = (record: InstalledKey): record is KeyBackup =>
  "format" in record && record.format === "bank-connect-key-backup";

export const isPasskeyHeld = (record: InstalledKey): record is PasskeyHeldKey =>
  "format" in record && record.format === PASSKEY_HELD_FORMAT;

/** The encrypted backup this browser keeps of the key, if any (to download again). */
export const backupOf = (record: InstalledKey): KeyBackup | null =>
  isKeyBackup(record) ? record : isPasskeyHeld(record) ? record.backup : null;

export async function loadInstalledKey(userId: string): Promise<InstalledKey | null> {
  const found = await inTransaction<InstalledKey | undefined>([STORES.keys], "readonly", (tx) =>
    tx.objectStore(STORES.keys).get(userId),
  );
  return found ?? null;
}

export async function loadPendingSetup(userId: string): Promise<PendingSetup | null> {
  const found = await inTransaction<PendingSetup | undefined>([STORES.setup], "readonly", (tx) =>
    tx.objectStore(STORES.setup).get(userId),
  );
  return found ?? null;
}

export async function savePendingSetup(userId: string, pending: PendingSetup): Promise<void> {
  await inTransaction([STORES.setup], "readwrite", (tx) => {
    tx.objectStore(STORES.setup).put(pending, userId);
  });
}

export async function deletePendingSetup(userId: string): Promise<void> {
  await inTransaction([STORES.setup], "readwrite", (tx) => {
    tx.objectStore(STORES.setup).delete(userId);
  });
}

/** Makes `backup` the key in use and ends any setup, in one step. */
export async function installKey(userId: string, backup: KeyBackup): Promise<void> {
  await inTransaction([STORES.keys, STORES.setup], "readwrite", (tx) => {
    tx.objectStore(STORES.keys).put(backup, userId);
    tx.objectStore(STORES.setup).delete(userId);
  });
}

/**
 * Keeps the key as held by the passkey `credentialId` (wrapped to its PRF
 * output) and ends any setup, in one step. A record of the same key is added
 * to (its backup and other passkeys stay); one of another key is replaced.
 */
export async function installPasskeyKey(
  userId: string,
  held: { credentialId: string; wrapped: PasskeyWrappedKey },
  backup: KeyBackup | null = null,
): Promise<void> {
  await inTransaction([STORES.keys, STORES.setup], "readwrite", (tx) => {
    const keys = tx.objectStore(STORES.keys);
    const read = keys.get(userId);
    read.onsuccess = () => {
      const found = (read.result ?? null) as InstalledKey | null;
      const same = found?.publicKey === held.wrapped.publicKey ? found : null;
      const others =
        same && isPasskeyHeld(same)
          ? same.passkeys.filter((passkey) => passkey.credentialId !== held.credentialId)
          : [];
      const record: PasskeyHeldKey = {
        format: PASSKEY_HELD_FORMAT,
        publicKey: held.wrapped.publicKey,
        passkeys: [...others, held],
        backup: backup ?? (same ? backupOf(same) : null),
      };
      keys.put(record, userId);
    };
    tx.objectStore(STORES.setup).delete(userId);
  });
}

/**
 * Unlocks a stored key with the passphrase (any stored form that has one);
 * a key only a passkey opens is a PasskeyRequiredError.
 */
export function unlockInstalledKey(record: InstalledKey, passphrase: string): Promise<UserKeyPair> {
  if (isPasskeyHeld(record)) {
    return record.backup
      ? openKeyBackup(record.backup, passphrase)
      : Promise.reject(new PasskeyRequiredError());
  }
  return isKeyBackup(record)
    ? openKeyBackup(record, passphrase)
    : unwrapPrivateKey(record, passphrase);
}
