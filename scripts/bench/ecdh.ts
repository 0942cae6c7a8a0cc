import {
  createECDH,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  webcrypto,
} from "node:crypto";
import { performance } from "node:perf_hooks";
import { nativeAgreement } from "../../lib/crypto/p256-agree";
import { SEAL_CHUNK } from "../../lib/crypto/seal-pool";
import { median } from "./measure";

/**
 * Benchmark (prints, never asserts): the ways node:crypto offers to make a
 * fresh ephemeral P-256 key pair and agree a secret with a fixed recipient
 * point, which is what every envelope needs, and the native agreement that
 * sealing uses when it is built (lib/crypto/p256-agree.ts). Rounds interleave the candidates, so
 * a machine busy with other work slows them alike; the median round counts.
 *
 *   npx tsx scripts/bench/ecdh.ts [count per round]
 */

const COUNT = Number(process.argv[2] ?? 2_000);
const ROUNDS = 5;

const recipientEcdh = createECDH("prime256v1");
const recipient = recipientEcdh.generateKeys();
const recipientKey = createPublicKey({
  key: {
    kty: "EC",
    crv: "P-256",
    x: recipient.subarray(1, 33).toString("base64url"),
    y: recipient.subarray(33).toString("base64url"),
  },
  format: "jwk",
});
const reused = createECDH("prime256v1");

/** Each returns the ephemeral raw point and the shared secret, as sealing needs them. */
const candidates: Record<string, () => [Buffer, Buffer]> = {
  "createECDH per envelope: generateKeys + computeSecret": () => {
    const ephemeral = createECDH("prime256v1");
    return [ephemeral.generateKeys(), ephemeral.computeSecret(recipient)];
  },
  "one createECDH, generateKeys per envelope + computeSecret": () => [
    reused.generateKeys(),
    reused.computeSecret(recipient),
  ],
  "generateKeyPairSync + diffieHellman (recipient KeyObject)": () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const point = publicKey.export({ format: "der", type: "spki" }).subarray(-65);
    return [point, diffieHellman({ privateKey, publicKey: recipientKey })];
  },
};

async function webCryptoRate(count: number): Promise<number> {
  const { subtle } = webcrypto;
  const key = await subtle.importKey(
    "raw",
    recipient,
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const one = async () => {
    const pair = await subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
      "deriveBits",
    ]);
    return Promise.all([
      subtle.exportKey("raw", pair.publicKey),
      subtle.deriveBits({ name: "ECDH", public: key }, pair.privateKey, 256),
    ]);
  };
  const started = performance.now();
  // 64 at a time: WebCrypto runs its jobs on libuv's thread pool.
  for (let done = 0; done < count; done += 64) await Promise.all(Array.from({ length: 64 }, one));
  return count / ((performance.now() - started) / 1000);
}

/** The native agreement (lib/crypto/p256-agree.ts), in batches of a worker's chunk, as sealing calls it. */
function nativeRate(count: number): number | null {
  const native = nativeAgreement();
  if (!native) return null;
  const started = performance.now();
  for (let done = 0; done < count; done += SEAL_CHUNK) native.agree(recipient, SEAL_CHUNK);
  return (Math.ceil(count / SEAL_CHUNK) * SEAL_CHUNK) / ((performance.now() - started) / 1000);
}

async function main() {
  const rates: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, run] of Object.entries(candidates)) {
      for (let i = 0; i < 50; i += 1) run();
      const started = performance.now();
      for (let i = 0; i < COUNT; i += 1) run();
      (rates[name] ??= []).push(COUNT / ((performance.now() - started) / 1000));
    }
    (rates["WebCrypto generateKey + deriveBits, 64 in flight"] ??= []).push(
      await webCryptoRate(COUNT),
    );
    const native = nativeRate(COUNT);
    if (native !== null) {
      (rates[`native agreement (native/p256-agree), batches of ${SEAL_CHUNK}`] ??= []).push(native);
    }
  }
  console.table(
    Object.entries(rates).map(([candidate, values]) => ({
      candidate,
      "median key agreements/s": Math.round(median(values)),
    })),
  );
}

void main();
