// Drives the addon with valid and invalid input, for the sanitizer run
// (sanitize.sh): a few thousand agreements, checked against node:crypto, and
// every kind of refusal (wrong types and lengths, points off the curve, zero
// and random bytes, bad counts), in the main thread and in workers.
//
//   node stress.mjs path/to/p256_agree.node
import { createECDH, ECDH, randomBytes, randomInt } from "node:crypto";
import { createRequire } from "node:module";
import { isMainThread, Worker, workerData } from "node:worker_threads";

const addonPath = isMainThread ? process.argv[2] : workerData;
if (!addonPath) throw new Error("usage: node stress.mjs path/to/p256_agree.node");
const { agree } = createRequire(import.meta.url)(addonPath);

function check(condition, message) {
  if (!condition) throw new Error(message);
}

function refuses(recipient, count, kind) {
  try {
    agree(recipient, count);
  } catch (error) {
    check(error instanceof kind, `expected a ${kind.name}, got ${error}`);
    return;
  }
  throw new Error(`accepted ${String(recipient).slice(0, 40)} / ${count}`);
}

function isOnCurve(point) {
  try {
    ECDH.convertKey(point, "prime256v1");
    return true;
  } catch {
    return false;
  }
}

let agreements = 0;
for (let round = 0; round < 40; round += 1) {
  const recipient = createECDH("prime256v1");
  const point = recipient.generateKeys();
  const count = randomInt(0, 80);
  const records = agree(point, count);
  check(records.length === count * 97, "wrong length");
  for (let index = 0; index < count; index += 1) {
    const record = records.subarray(index * 97, (index + 1) * 97);
    check(
      recipient.computeSecret(record.subarray(0, 65)).equals(record.subarray(65)),
      "secret differs from node:crypto's",
    );
  }
  agreements += count;

  // Wrong types and lengths.
  for (const length of [0, 1, 33, 64, 66, 97, 130]) {
    const bytes = randomBytes(length);
    if (length > 0) bytes[0] = 0x04;
    refuses(bytes, 1, TypeError);
  }
  refuses(ECDH.convertKey(point, "prime256v1", undefined, undefined, "compressed"), 1, TypeError);
  refuses(new Uint16Array(65), 1, TypeError);
  refuses(new Float64Array(65), 1, TypeError);
  refuses([...point], 1, TypeError);
  refuses(point.toString("hex"), 1, TypeError);
  refuses(null, 1, TypeError);
  refuses(new DataView(point.buffer, point.byteOffset, 65), 1, TypeError);
  // A view of 65 bytes at an odd offset of a larger buffer is a valid input.
  const larger = Buffer.concat([randomBytes(3), point, randomBytes(5)]);
  check(agree(larger.subarray(3, 68), 2).length === 194, "offset view");
  // Points that are not on the curve: zeros, random coordinates, one bit changed.
  refuses(Buffer.concat([Buffer.of(4), Buffer.alloc(64)]), 1, Error);
  refuses(Buffer.alloc(65), 1, TypeError);
  const flipped = Buffer.from(point);
  flipped[1 + randomInt(0, 64)] ^= 1 << randomInt(0, 8);
  if (!isOnCurve(flipped)) refuses(flipped, 1, Error);
  for (let index = 0; index < 20; index += 1) {
    const random = Buffer.concat([Buffer.of(4), randomBytes(64)]);
    if (isOnCurve(random)) agree(random, 1);
    else refuses(random, 3, Error);
  }
  // Coordinates of the field's size or more (p = 2^256 - 2^224 + 2^192 + 2^96 - 1).
  refuses(Buffer.concat([Buffer.of(4), Buffer.alloc(64, 0xff)]), 1, Error);
  // Bad counts.
  for (const count of [
    -1,
    0.5,
    65_537,
    2 ** 32,
    NaN,
    Infinity,
    -Infinity,
    "1",
    null,
    undefined,
    1n,
  ]) {
    refuses(point, count, TypeError);
  }
  refuses(point, undefined, TypeError);
  try {
    agree(point);
    throw new Error("accepted one argument");
  } catch (error) {
    check(error instanceof TypeError, String(error));
  }
}

if (isMainThread) {
  // Each worker loads its own instance of the addon and frees it when it ends.
  const results = await Promise.all(
    [0, 1].map(
      () =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: addonPath });
          worker.on("message", resolve);
          worker.on("error", reject);
        }),
    ),
  );
  agreements += results.reduce((sum, value) => sum + value, 0);
  console.log(
    `stress: ${agreements} agreements checked against node:crypto, every refusal as expected`,
  );
} else {
  const { parentPort } = await import("node:worker_threads");
  parentPort.postMessage(agreements);
}
