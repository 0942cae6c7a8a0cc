import { randomUUID } from "node:crypto";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { define, flowHeaders, type Generator } from "./generator";
import type { Rng } from "./prng";
import type { Mutation } from "./template";
import { pathIdMutation, withHeaders } from "./mutations";
import type { FuzzContext } from "./types";

/**
 * The passkey endpoints (docs/sessions.md#passkeys, docs/account.md#passkeys):
 * anonymous sign-in from this service's pages, and a signed-in person's
 * registration, list, removal, giving a passkey the key, and the saved-backup
 * note. Every answer is JSON: the result, or `{error}` with a 4xx.
 */

const KEY = generateKeyPair().publicKeyRawB64;
const b64url = (rng: Rng, bytes: number) =>
  Buffer.from(rng.hex(bytes * 2), "hex").toString("base64url");

/** A WebAuthn answer as the browser library sends it, with made-up bytes. */
function credentialResponse(rng: Rng, kind: "assertion" | "attestation") {
  const id = b64url(rng, 32);
  const clientDataJSON = Buffer.from(
    JSON.stringify({
      type: kind === "assertion" ? "webauthn.get" : "webauthn.create",
      challenge: b64url(rng, 32),
      origin: "http://localhost",
    }),
  ).toString("base64url");
  return {
    id,
    rawId: id,
    type: "public-key",
    authenticatorAttachment: "platform",
    clientExtensionResults: rng.chance(0.5) ? {} : { prf: { enabled: true } },
    response:
      kind === "assertion"
        ? {
            clientDataJSON,
            authenticatorData: b64url(rng, 37),
            signature: b64url(rng, 70),
            userHandle: b64url(rng, 16),
          }
        : {
            clientDataJSON,
            attestationObject: b64url(rng, 200),
            transports: ["internal", "hybrid"],
          },
  };
}

/** A wrapped key in the stored JSON form, around the wrong bytes. */
const wrappedKey = (rng: Rng) =>
  JSON.stringify({
    version: 1,
    publicKey: KEY,
    iv: Buffer.from(rng.hex(12), "hex").toString("base64"),
    ciphertext: Buffer.from(rng.hex(150), "hex").toString("base64"),
  });

/** The person's session swapped, dropped or spoiled; the Origin changed. */
const personMutations = (ctx: FuzzContext): Record<string, Mutation> => ({
  "passkey-session": (rng, t) =>
    withHeaders(t, (h) => {
      const choice = rng.int(0, 4);
      if (choice === 0) delete h.cookie;
      else if (choice === 1) h.cookie = rng.pick(ctx.flows).cookie;
      else if (choice === 2) h.cookie = `bc_session=${rng.pick(["%zz", rng.hex(20), "\u00ff"])}`;
      else if (choice === 3) h.origin = rng.pick(["http://evil.example", "null"]);
      else delete h.origin;
    }),
  "passkey-body": (rng, t) => {
    const out = structuredClone(t);
    if (out.body?.type !== "json") return out;
    const value = out.body.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return out;
    const fields = value as Record<string, unknown>;
    const names = Object.keys(fields);
    const name = names.length > 0 ? rng.pick(names) : "response";
    fields[name] = rng.pick<unknown>([
      null,
      42,
      -1,
      true,
      "",
      "x".repeat(5000),
      [],
      {},
      { response: {} },
      "\u0000\ud800",
      2 ** 53,
    ]);
    return out;
  },
});

const json = (
  name: string,
  method: "POST" | "PUT" | "DELETE",
  methods: readonly ("GET" | "POST" | "PUT" | "DELETE")[],
  build: (
    rng: Rng,
    ctx: FuzzContext,
  ) => { path?: string; idSlot?: [string, string]; cookie?: string; value: unknown },
): Generator =>
  define(
    { name, family: "passkey-json", methods },
    (rng, ctx) => {
      const made = build(rng, ctx);
      return {
        method,
        path: made.path ?? name,
        ...(made.idSlot ? { idSlot: made.idSlot } : {}),
        headers: flowHeaders(ctx, made.cookie ?? ctx.passkeys.cookie),
        body: { type: "json", value: made.value },
      };
    },
    (ctx) => ({
      ...personMutations(ctx),
      // Another passkey's id, none, or a malformed one in the path.
      "path-id": pathIdMutation(() => [
        ...ctx.passkeys.ids,
        "00000000-0000-4000-8000-000000000000",
      ]),
    }),
  );

export const PASSKEY_GENERATORS: Generator[] = [
  json("/passkeys/sign-in/options", "POST", ["POST"], (rng, ctx) => ({
    cookie: rng.chance(0.5) ? "" : rng.pick(ctx.flows).cookie,
    value: {},
  })),
  json("/passkeys/sign-in", "POST", ["POST"], (rng, ctx) => ({
    cookie: rng.chance(0.5) ? "" : rng.pick(ctx.flows).cookie,
    value: {
      challengeId: rng.chance(0.5) ? randomUUID() : rng.hex(8),
      response: credentialResponse(rng, "assertion"),
      ...(rng.chance(0.5) ? { flowId: randomUUID() } : {}),
      returnUrl: rng.pick([
        "/account",
        "/login/continue",
        "//evil.example",
        "https://evil.example",
      ]),
    },
  })),
  json("/passkeys/register/options", "POST", ["POST"], (_rng, ctx) => ({
    value: { csrf: ctx.passkeys.addCsrf },
  })),
  json("/passkeys/register", "POST", ["POST"], (rng, ctx) => ({
    value: {
      csrf: ctx.passkeys.addCsrf,
      challengeId: randomUUID(),
      response: credentialResponse(rng, "attestation"),
      name: rng.pick(["Pixel 9", "iPhone", "", "n".repeat(65), "tab\there"]),
      ...(rng.chance(0.5) ? { wrappedKey: wrappedKey(rng) } : {}),
    },
  })),
  define(
    { name: "/account/passkeys", family: "passkey-json", methods: ["GET"] },
    (_rng, ctx) => ({
      method: "GET",
      path: "/account/passkeys",
      headers: { cookie: ctx.passkeys.cookie },
    }),
    personMutations,
  ),
  json("/account/passkeys/[id]", "DELETE", ["DELETE"], (rng, ctx) => ({
    path: `/account/passkeys/${rng.chance(0.7) ? rng.pick(ctx.passkeys.ids) : randomUUID()}`,
    idSlot: ["/account/passkeys/", ""],
    value: { csrf: ctx.passkeys.removeCsrf },
  })),
  json("/account/passkeys/[id]/key", "PUT", ["PUT"], (rng, ctx) => ({
    path: `/account/passkeys/${rng.chance(0.7) ? rng.pick(ctx.passkeys.ids) : rng.hex(6)}/key`,
    idSlot: ["/account/passkeys/", "/key"],
    value: { csrf: ctx.passkeys.addCsrf, wrappedKey: wrappedKey(rng) },
  })),
  json("/account/key/backup-saved", "POST", ["POST"], (rng, ctx) => ({
    value: { csrf: ctx.passkeys.backupCsrf, publicKey: rng.chance(0.5) ? KEY : ctx.passkeys.key },
  })),
];
