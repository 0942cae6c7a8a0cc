import { send, type Answer, type Endpoint } from "./ui/request";

/**
 * The decryption key section's calls to /api/partners/mine/recipient-key:
 * a possession challenge for a public key, and the install that answers it.
 * A refused call throws Refused with its answer, so a multi-step action
 * stops at the first refusal and the panel can say why.
 */

export type Challenge = { fingerprint: string; envelope: string };
export type Installed = { fingerprint: string; installedAt: string | null };

export class Refused extends Error {
  constructor(readonly answer: Answer) {
    super("refused");
  }
}

/** The refused answer behind a failed action (a failure in the browser is status 0). */
export function refusedAnswer(cause: unknown): Answer {
  return cause instanceof Refused ? cause.answer : { ok: false, status: 0, body: {} };
}

export function recipientKeyApi(endpoint: Endpoint) {
  async function call<T>(path: string, method: string, json: unknown): Promise<T> {
    const answered = await send<T>(endpoint, `/api/partners/mine/recipient-key${path}`, {
      method,
      json,
    });
    if (!answered.ok) throw new Refused(answered as Answer);
    return answered.body;
  }
  return {
    challenge: (publicKey: string) => call<Challenge>("/challenge", "POST", { publicKey }),
    /** Installs `publicKey`, naming the installed key it replaces (null: none). */
    install: (body: { publicKey: string; challengeAnswer: string; replaces: string | null }) =>
      call<Installed & { installedAt: string }>("", "PUT", body),
  };
}

/** Saves the key file in the published CLI's shape; the private half stays on this machine. Returns its name. */
export function downloadKeyFile(
  pair: { privateKey: string; publicKey: string },
  fingerprint: string,
): string {
  const file = {
    service: "open-banking.io",
    kind: "partner-recipient-key",
    fingerprint,
    encryptionKey: {
      scheme: "ECDH-P256 + HKDF-SHA256 + AES-256-GCM",
      curve: "P-256",
      privateKeyFormat: "pkcs8-base64",
      privateKey: pair.privateKey,
      publicKey: pair.publicKey,
    },
    createdAt: new Date().toISOString(),
  };
  const name = `recipient-key-${fingerprint}.json`;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(
    new Blob([JSON.stringify(file, null, 2)], { type: "application/json" }),
  );
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
  return name;
}
