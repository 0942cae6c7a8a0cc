import { describe, expect, it } from "vitest";
import {
  generateUserKey,
  InvalidBackupError,
  PBKDF2_ITERATIONS,
  toCredentialsBundle,
  WrongPassphraseError,
} from "./browser-key";
import {
  createKeyBackup,
  openKeyBackup,
  readBackupFile,
  serializeKeyBackup,
  type KeyBackup,
} from "./key-backup";

const PASSPHRASE = "correct horse battery staple";
// Fewer iterations keep most tests quick; one test checks the production default.
const FAST = 1000;

async function backupOf(
  pair = undefined as Awaited<ReturnType<typeof generateUserKey>> | undefined,
) {
  const key = pair ?? (await generateUserKey());
  const backup = await createKeyBackup({
    pair: key,
    passphrase: PASSPHRASE,
    account: "ada@example.com",
    apiBaseUrl: "http://localhost:3000",
    readme: "How to restore.",
    iterations: FAST,
  });
  return { key, backup };
}

describe("the encrypted key backup", () => {
  it("holds no plaintext private key, says what it is and keeps the public key in the clear", async () => {
    const { key, backup } = await backupOf();
    const text = serializeKeyBackup(backup);
    const privateBytes = Buffer.from(key.privateKey, "base64");
    expect(text).not.toContain(key.privateKey.slice(0, 40));
    expect(text).not.toContain(privateBytes.subarray(36, 68).toString("base64"));
    expect(JSON.parse(text)).toMatchObject({
      format: "bank-connect-key-backup",
      version: 1,
      service: "Bank Connect",
      readme: "How to restore.",
      account: "ada@example.com",
      publicKey: key.publicKey,
      encryption: { kdf: "PBKDF2-SHA256", cipher: "AES-256-GCM", iterations: FAST },
    });
  });

  it("derives with at least 600 000 PBKDF2 iterations by default", async () => {
    const key = await generateUserKey();
    const backup = await createKeyBackup({
      pair: key,
      passphrase: PASSPHRASE,
      account: "a@b",
      apiBaseUrl: "http://localhost:3000",
      readme: "r",
    });
    expect(PBKDF2_ITERATIONS).toBeGreaterThanOrEqual(600_000);
    expect(backup.encryption.iterations).toBe(PBKDF2_ITERATIONS);
    expect(await openKeyBackup(backup, PASSPHRASE)).toEqual(key);
  });

  it("opens with the passphrase after a trip through the file, and refuses a wrong one", async () => {
    const { key, backup } = await backupOf();
    const file = await readBackupFile(serializeKeyBackup(backup));
    expect(file.kind).toBe("encrypted");
    expect(file.publicKey).toBe(key.publicKey);
    if (file.kind !== "encrypted") throw new Error("unreachable");
    expect(await openKeyBackup(file.backup, PASSPHRASE)).toEqual(key);
    await expect(
      openKeyBackup(file.backup, "correct horse battery stapler"),
    ).rejects.toBeInstanceOf(WrongPassphraseError);
  });

  it("does not open when its clear public key was swapped for another", async () => {
    const { backup } = await backupOf();
    const other = await generateUserKey();
    const edited: KeyBackup = { ...backup, publicKey: other.publicKey };
    await expect(openKeyBackup(edited, PASSPHRASE)).rejects.toBeInstanceOf(WrongPassphraseError);
  });

  it("reads a plaintext credentials bundle (a developer export or an older backup) as the same key", async () => {
    const key = await generateUserKey();
    const bundle = toCredentialsBundle({ issuer: "http://localhost:3000", user: "u", pair: key });
    expect(await readBackupFile(JSON.stringify(bundle))).toEqual({
      kind: "plain",
      pair: key,
      publicKey: key.publicKey,
    });
  });

  it("refuses files that are not a backup, damaged ones and absurd iteration counts", async () => {
    const { backup } = await backupOf();
    const refused = async (value: unknown) =>
      expect(
        readBackupFile(typeof value === "string" ? value : JSON.stringify(value)),
      ).rejects.toBeInstanceOf(InvalidBackupError);
    await refused("not json");
    await refused({ not: "a backup" });
    await refused({ ...backup, version: 2 });
    await refused({ ...backup, publicKey: "AAAA" });
    await refused({ ...backup, encryptedPrivateKey: "" });
    await refused({ ...backup, encryption: { ...backup.encryption, iv: "AAAA" } });
    await refused({ ...backup, encryption: { ...backup.encryption, kdf: "scrypt" } });
    await refused({ ...backup, encryption: { ...backup.encryption, iterations: 1e12 } });
    await refused({ ...backup, encryption: { ...backup.encryption, iterations: 1.5 } });
  });
});
