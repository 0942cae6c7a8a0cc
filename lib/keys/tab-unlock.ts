import { fromBase64, toBase64, type UserKeyPair } from "./browser-key";
import { inTransaction, STORES } from "./browser-store";

/**
 * The key stays unlocked for the tab it was set up or unlocked in
 * (docs/key-model.md), so consent does not ask for the passphrase that was
 * typed a minute before. The private key is kept in this tab's
 * sessionStorage, encrypted with a non-extractable AES-GCM key that lives in
 * IndexedDB under a random id only this tab's sessionStorage knows. Neither
 * half alone gives the key: sessionStorage ends with the tab, the AES key
 * cannot be read out of the browser, and both are deleted once the relay is
 * posted or after TAB_UNLOCK_SECONDS. Another tab, or a later visit, asks
 * for the passphrase.
 */

export const TAB_UNLOCK_SECONDS = 15 * 60;
const TAB_ID = "bank-connect.tab-id";
const UNLOCKED = "bank-connect.unlocked-key";

interface TabKey {
  key: CryptoKey;
  expiresAt: number;
}

interface UnlockedKey {
  userId: string;
  publicKey: string;
  iv: string;
  ciphertext: string;
  expiresAt: number;
}

const additionalData = (entry: Pick<UnlockedKey, "userId" | "publicKey" | "expiresAt">) =>
  new TextEncoder().encode(`tab-unlock|${entry.userId}|${entry.publicKey}|${entry.expiresAt}`);

function tabId(): string {
  const known = sessionStorage.getItem(TAB_ID);
  if (known) return known;
  const made = toBase64(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(TAB_ID, made);
  return made;
}

/** Keeps `pair` unlocked for this tab (replacing what it kept before). */
export async function keepUnlockedInTab(userId: string, pair: UserKeyPair, now = Date.now()) {
  const expiresAt = now + TAB_UNLOCK_SECONDS * 1000;
  const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: additionalData({ userId, ...pair, expiresAt }) },
    key,
    fromBase64(pair.privateKey),
  );
  const id = tabId();
  await inTransaction([STORES.tabKeys], "readwrite", (tx) => {
    tx.objectStore(STORES.tabKeys).put({ key, expiresAt } satisfies TabKey, id);
  });
  const entry: UnlockedKey = {
    userId,
    publicKey: pair.publicKey,
    iv: toBase64(iv),
    ciphertext: toBase64(ciphertext),
    expiresAt,
  };
  sessionStorage.setItem(UNLOCKED, JSON.stringify(entry));
}

/** The key this tab holds unlocked for this user and public key, or null. */
export async function unlockedInTab(
  userId: string,
  publicKey: string,
  now = Date.now(),
): Promise<UserKeyPair | null> {
  await forgetExpiredTabKeys(now);
  const text = sessionStorage.getItem(UNLOCKED);
  const id = sessionStorage.getItem(TAB_ID);
  if (!text || !id) return null;
  let entry: UnlockedKey;
  try {
    entry = JSON.parse(text) as UnlockedKey;
  } catch {
    return null;
  }
  if (entry.userId !== userId || entry.publicKey !== publicKey || entry.expiresAt <= now) {
    return null;
  }
  const stored = await inTransaction<TabKey | undefined>([STORES.tabKeys], "readonly", (tx) =>
    tx.objectStore(STORES.tabKeys).get(id),
  );
  if (!stored || stored.expiresAt !== entry.expiresAt) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64(entry.iv), additionalData: additionalData(entry) },
      stored.key,
      fromBase64(entry.ciphertext),
    );
    return { privateKey: toBase64(plain), publicKey };
  } catch {
    return null;
  }
}

/** Deletes both halves of this tab's unlocked key. */
export async function forgetTabUnlock(): Promise<void> {
  const id = sessionStorage.getItem(TAB_ID);
  sessionStorage.removeItem(UNLOCKED);
  if (!id) return;
  await inTransaction([STORES.tabKeys], "readwrite", (tx) => {
    tx.objectStore(STORES.tabKeys).delete(id);
  });
}

/** Tabs that were closed leave their AES key behind; it is useless alone, and deleted once expired. */
async function forgetExpiredTabKeys(now: number): Promise<void> {
  await inTransaction([STORES.tabKeys], "readwrite", (tx) => {
    const request = tx.objectStore(STORES.tabKeys).openCursor();
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor) return;
      if ((cursor.value as TabKey).expiresAt <= now) cursor.delete();
      cursor.continue();
    };
  });
}
