import {
  fromBase64,
  InvalidBackupError,
  pairFromCredentials,
  passphraseKey,
  PBKDF2_ITERATIONS,
  publicKeyOf,
  toBase64,
  WrongPassphraseError,
  type UserKeyPair,
} from "./browser-key";

/**
 * The key backup file (docs/key-model.md): the user's private key encrypted
 * with their passphrase (PBKDF2-SHA256 → AES-256-GCM), so the file alone
 * opens nothing. It says in plain words what it is and how to restore it, and
 * carries the public key in the clear: an import can tell a backup of another
 * key before asking for the passphrase. The same object is what the browser
 * keeps in IndexedDB, so the file can be downloaded again at any time.
 */

export const BACKUP_FORMAT = "bank-connect-key-backup";
export const BACKUP_VERSION = 1;
/** Far above any honest count; a file cannot make the browser derive for minutes. */
const MAX_ITERATIONS = 10_000_000;

export interface KeyBackup {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  service: "Bank Connect";
  readme: string;
  /** The address of the account the key belongs to. */
  account: string;
  apiBaseUrl: string;
  createdAt: string;
  /** Raw P-256 point, standard base64: the key the service has registered. */
  publicKey: string;
  encryption: {
    kdf: "PBKDF2-SHA256";
    iterations: number;
    salt: string;
    cipher: "AES-256-GCM";
    iv: string;
  };
  /** The PKCS#8 private key, encrypted; the public key is its additional data. */
  encryptedPrivateKey: string;
}

/** Binds the clear public key to the ciphertext: editing it makes the file fail to open. */
const additionalData = (publicKey: string) =>
  new TextEncoder().encode(`${BACKUP_FORMAT}/${BACKUP_VERSION}|${publicKey}`);

export async function createKeyBackup(input: {
  pair: UserKeyPair;
  passphrase: string;
  account: string;
  apiBaseUrl: string;
  readme: string;
  now?: Date;
  iterations?: number;
}): Promise<KeyBackup> {
  const iterations = input.iterations ?? PBKDF2_ITERATIONS;
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await passphraseKey(input.passphrase, salt, iterations);
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: additionalData(input.pair.publicKey) },
    key,
    fromBase64(input.pair.privateKey),
  );
  return {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    service: "Bank Connect",
    readme: input.readme,
    account: input.account,
    apiBaseUrl: input.apiBaseUrl,
    createdAt: (input.now ?? new Date()).toISOString(),
    publicKey: input.pair.publicKey,
    encryption: {
      kdf: "PBKDF2-SHA256",
      iterations,
      salt: toBase64(salt),
      cipher: "AES-256-GCM",
      iv: toBase64(iv),
    },
    encryptedPrivateKey: toBase64(ciphertext),
  };
}

/** Decrypts a backup; a wrong passphrase is a WrongPassphraseError, a damaged file an InvalidBackupError. */
export async function openKeyBackup(backup: KeyBackup, passphrase: string): Promise<UserKeyPair> {
  const { salt, iv, iterations } = backup.encryption;
  const key = await passphraseKey(passphrase, fromBase64(salt), iterations);
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64(iv), additionalData: additionalData(backup.publicKey) },
      key,
      fromBase64(backup.encryptedPrivateKey),
    );
  } catch {
    // AES-GCM cannot tell a wrong passphrase from an edited file; the wrong passphrase is the likely one.
    throw new WrongPassphraseError();
  }
  const privateKey = toBase64(plain);
  if ((await publicKeyOf(privateKey)) !== backup.publicKey) {
    throw new InvalidBackupError("the private key does not belong to the public key");
  }
  return { privateKey, publicKey: backup.publicKey };
}

const isBase64 = (value: unknown, bytes?: number): value is string => {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return false;
  try {
    const length = atob(value).length;
    return bytes === undefined ? length > 0 : length === bytes;
  } catch {
    return false;
  }
};

/** Checks the shape of a parsed backup; throws InvalidBackupError naming what is wrong. */
export function asKeyBackup(value: unknown): KeyBackup {
  const record = value as Partial<KeyBackup> | null;
  if (typeof record !== "object" || record === null || record.format !== BACKUP_FORMAT) {
    throw new InvalidBackupError("not a key backup");
  }
  if (record.version !== BACKUP_VERSION) throw new InvalidBackupError("unknown version");
  const encryption = record.encryption;
  if (
    !isBase64(record.publicKey, 65) ||
    !isBase64(record.encryptedPrivateKey) ||
    typeof encryption !== "object" ||
    encryption === null ||
    encryption.kdf !== "PBKDF2-SHA256" ||
    encryption.cipher !== "AES-256-GCM" ||
    !Number.isInteger(encryption.iterations) ||
    encryption.iterations < 1 ||
    encryption.iterations > MAX_ITERATIONS ||
    !isBase64(encryption.salt) ||
    !isBase64(encryption.iv, 12)
  ) {
    throw new InvalidBackupError("damaged");
  }
  return record as KeyBackup;
}

export type BackupFile =
  | { kind: "encrypted"; backup: KeyBackup; publicKey: string }
  | { kind: "plain"; pair: UserKeyPair; publicKey: string };

/**
 * Reads a file chosen for import: an encrypted backup, or a plaintext
 * credentials bundle (a developer export, or a backup from before backups
 * were encrypted), which is the user's key all the same.
 */
export async function readBackupFile(text: string): Promise<BackupFile> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidBackupError("not JSON");
  }
  if ((parsed as { format?: unknown } | null)?.format === BACKUP_FORMAT) {
    const backup = asKeyBackup(parsed);
    return { kind: "encrypted", backup, publicKey: backup.publicKey };
  }
  const pair = await pairFromCredentials(parsed);
  return { kind: "plain", pair, publicKey: pair.publicKey };
}

export const serializeKeyBackup = (backup: KeyBackup) => `${JSON.stringify(backup, null, 2)}\n`;
