import { createECDH } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { rawSetting } from "../env";

/**
 * The native P-256 key agreement (`native/p256-agree`), when it is built.
 *
 * Every envelope needs a fresh ephemeral key pair and one ECDH agreement with
 * the tenant's key. node:crypto's ECDH checks its own key pair in full on
 * every `computeSecret` (a multiplication by the group order and a pairwise
 * check), which doubles the cost of each agreement; the addon makes the same
 * agreement with the OpenSSL that Node carries, without the check a freshly
 * generated key cannot fail (`npx tsx scripts/bench/ecdh.ts` compares them).
 * `npm install` builds it where a C compiler is present; without one,
 * sealing uses node:crypto, with envelopes of the same form, at about half
 * the speed.
 *
 * P256_AGREE_ADDON, for tests and diagnosis only: `off` leaves the addon
 * unloaded (sealing as on a machine without a C compiler), a path loads that
 * build of it instead of the installed one (the sanitizer run,
 * native/p256-agree/sanitize.sh).
 */

/** `count` records of AGREEMENT_BYTES: ephemeral point (65 bytes) ‖ shared secret (32). */
export type Agree = (recipient: Uint8Array, count: number) => Buffer;

export const AGREEMENT_BYTES = 97;

export interface NativeAgreement {
  agree: Agree;
  /** The addon's entry file, for the sealing workers to load it too. */
  modulePath: string;
}

type Loaded =
  { native: NativeAgreement; unavailable?: undefined } | { native: null; unavailable: string };

const state = globalThis as { bankConnectNativeAgreement?: Loaded };

/**
 * Loads the addon once and checks it against node:crypto on one agreement;
 * null when it is not built or does not agree (then sealing uses node:crypto).
 */
export function nativeAgreement(): NativeAgreement | null {
  state.bankConnectNativeAgreement ??= load();
  return state.bankConnectNativeAgreement.native;
}

/** Why nativeAgreement() is null, in a sentence; undefined when the addon is loaded. */
export function nativeAgreementUnavailable(): string | undefined {
  state.bankConnectNativeAgreement ??= load();
  return state.bankConnectNativeAgreement.unavailable;
}

function load(): Loaded {
  const setting = rawSetting("P256_AGREE_ADDON")?.trim();
  if (setting === "off") {
    return { native: null, unavailable: "P256_AGREE_ADDON=off leaves it unloaded" };
  }
  let modulePath: string;
  try {
    // Resolved at run time from the application's folder (npm scripts and the image run
    // there), so no bundler tries to include the compiled file.
    const fromApp = createRequire(path.join(process.cwd(), "package.json"));
    modulePath = setting ? path.resolve(setting) : fromApp.resolve("@bank-connect/p256-agree");
  } catch {
    return {
      native: null,
      unavailable:
        "native/p256-agree is not built (npm install builds it where a C compiler is present: on Debian, apt-get install make g++ python3, then npm install)",
    };
  }
  try {
    const { agree } = createRequire(modulePath)(modulePath) as { agree: Agree };
    return agreesWithNode(agree)
      ? { native: { agree, modulePath } }
      : { native: null, unavailable: `${modulePath} does not agree with node:crypto` };
  } catch (error) {
    return {
      native: null,
      unavailable: `${modulePath} does not load (${(error instanceof Error ? error.message : String(error)).split("\n")[0]}): npm rebuild @bank-connect/p256-agree builds it for this Node`,
    };
  }
}

/** One agreement with a throwaway recipient, opened by node:crypto. */
export function agreesWithNode(agree: Agree): boolean {
  const recipient = createECDH("prime256v1");
  const record = agree(recipient.generateKeys(), 1);
  if (record.length !== AGREEMENT_BYTES) return false;
  return recipient.computeSecret(record.subarray(0, 65)).equals(record.subarray(65));
}
