import {
  createHash,
  createSign,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from "node:crypto";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";

/** What the authenticator reads of creation options (PublicKeyCredentialCreationOptionsJSON). */
export interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

/** What it reads of request options (PublicKeyCredentialRequestOptionsJSON). */
export interface RequestOptions {
  challenge: string;
  rpId?: string;
}

/**
 * A software WebAuthn authenticator for the tests (docs/sessions.md#passkeys):
 * P-256 credentials made and used as a platform authenticator would, with
 * "none" attestation. Everything the service checks is built here by hand,
 * independently of the library the service verifies with: the CBOR of the
 * attestation object and of the COSE key, the authenticator data (rp id
 * hash, flags, signature counter, attested credential), the client data JSON
 * a browser would make, and ECDSA P-256 / SHA-256 signatures (node:crypto).
 * Each ceremony can be bent to what a test needs: another origin or rp id, no
 * user verification, a counter of its choosing.
 */

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

// --- CBOR (RFC 8949), the subset a COSE key and an attestation object need ---

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function cborHead(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value]);
  if (value < 0x100) return Buffer.from([(major << 5) | 24, value]);
  if (value < 0x10000) return Buffer.from([(major << 5) | 25, value >> 8, value & 0xff]);
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(value, 1);
  return head;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === "number") {
    return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  }
  if (typeof value === "string") {
    const text = Buffer.from(value, "utf8");
    return Buffer.concat([cborHead(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  const parts = [cborHead(5, value.size)];
  for (const [key, item] of value) parts.push(cbor(key), cbor(item));
  return Buffer.concat(parts);
}

// ---

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  cosePublicKey: Buffer;
  userHandle: string;
  counter: number;
}

export interface CeremonyOptions {
  /** The origin the "browser" reports; the service's own by default. */
  origin?: string;
  /** The rp id whose hash goes into the authenticator data; the options' by default. */
  rpId?: string;
  /** User verification done (the UV flag); true by default. */
  userVerified?: boolean;
  /** The client data's type; the ceremony's own by default. */
  type?: string;
}

export interface AssertionOptions extends CeremonyOptions {
  /** Which of this authenticator's credentials answers; the newest by default. */
  credentialId?: string;
  /** The signature counter to report instead of the next one. */
  counter?: number;
}

export class SoftwareAuthenticator {
  private readonly credentials: Credential[] = [];

  /**
   * `synced`: a passkey synced across devices (backup eligible and backed
   * up), which, like iCloud Keychain's and Google Password Manager's, keeps
   * its signature counter at 0. Otherwise a device-bound one whose counter
   * grows by one per use.
   */
  constructor(
    private readonly origin: string,
    private readonly options: { synced?: boolean } = {},
  ) {}

  private flags(userVerified: boolean, attested: boolean): number {
    let flags = FLAG_UP;
    if (userVerified) flags |= FLAG_UV;
    if (this.options.synced) flags |= FLAG_BE | FLAG_BS;
    if (attested) flags |= FLAG_AT;
    return flags;
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), "utf8");
  }

  /** navigator.credentials.create(): a new discoverable P-256 credential for the options' user. */
  create(options: CreationOptions, bent: CeremonyOptions = {}): RegistrationResponseJSON {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const cosePublicKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x ?? "", "base64url")],
        [-3, Buffer.from(jwk.y ?? "", "base64url")],
      ]),
    );
    const id = randomBytes(32);
    const counter = this.options.synced ? 0 : 1;
    const credentialIdLength = Buffer.alloc(2);
    credentialIdLength.writeUInt16BE(id.length);
    const signCount = Buffer.alloc(4);
    signCount.writeUInt32BE(counter);
    const authData = Buffer.concat([
      sha256(bent.rpId ?? options.rp.id ?? ""),
      Buffer.from([this.flags(bent.userVerified ?? true, true)]),
      signCount,
      Buffer.alloc(16), // AAGUID: none given
      credentialIdLength,
      id,
      cosePublicKey,
    ]);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    this.credentials.push({
      id,
      privateKey,
      cosePublicKey,
      userHandle: options.user.id,
      counter,
    });
    const clientDataJSON = this.clientData(
      bent.type ?? "webauthn.create",
      options.challenge,
      bent.origin ?? this.origin,
    );
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ["internal", "hybrid"],
      },
      // What a browser reports of PRF at creation; its output is never sent.
      clientExtensionResults: {
        prf: { enabled: true },
      } as RegistrationResponseJSON["clientExtensionResults"],
      authenticatorAttachment: "platform",
    };
  }

  /** navigator.credentials.get(): an assertion of one of this authenticator's credentials. */
  get(options: RequestOptions, bent: AssertionOptions = {}): AuthenticationResponseJSON {
    const credential = bent.credentialId
      ? this.credentials.find((candidate) => b64url(candidate.id) === bent.credentialId)
      : this.credentials.at(-1);
    if (!credential) throw new Error("no such credential on this authenticator");
    if (!this.options.synced) credential.counter += 1;
    const signCount = Buffer.alloc(4);
    signCount.writeUInt32BE(bent.counter ?? credential.counter);
    const authData = Buffer.concat([
      sha256(bent.rpId ?? options.rpId ?? ""),
      Buffer.from([this.flags(bent.userVerified ?? true, false)]),
      signCount,
    ]);
    const clientDataJSON = this.clientData(
      bent.type ?? "webauthn.get",
      options.challenge,
      bent.origin ?? this.origin,
    );
    const signer = createSign("sha256");
    signer.update(Buffer.concat([authData, sha256(clientDataJSON)]));
    const signature = signer.sign(credential.privateKey); // DER, as WebAuthn's ES256 signatures are
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** The id (base64url) of the newest credential. */
  get credentialId(): string {
    const newest = this.credentials.at(-1);
    if (!newest) throw new Error("no credential yet");
    return b64url(newest.id);
  }
}
