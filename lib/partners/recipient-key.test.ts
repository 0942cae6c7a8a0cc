import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as legacyChallengeRoute from "@/app/api/partner/recipient-key/challenge/route";
import * as legacyInstallRoute from "@/app/api/partner/recipient-key/route";
import * as challengeRoute from "@/app/api/partners/mine/recipient-key/challenge/route";
import * as installRoute from "@/app/api/partners/mine/recipient-key/route";
import { findSessionUser } from "../auth/sessions";
import { ensureTenant } from "../banking/tenants";
import { generateKeyPair, openJson, recipientKeyFingerprint } from "../crypto/envelope";
import { db } from "../db/client";
import { keyModeOf } from "../flow/flows";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  mintApiKey,
  signedInCookie,
} from "../../test/oauth-fixtures";
import { sessionCsrfToken } from "./owner-session";
import {
  handleInstallRecipientKey,
  handleRecipientKeyChallenge,
  RECIPIENT_KEY_CHALLENGE_TTL_MS,
  type Clock,
} from "./recipient-key";
import { ownerOf, type TestOwner } from "../../test/partner-owners";

function ownerRequest(
  owner: Pick<TestOwner, "cookie" | "csrf">,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return new Request(`${ISSUER}${path}`, {
    method,
    headers: {
      Cookie: owner.cookie,
      Origin: ISSUER,
      "Content-Type": "application/json",
      "X-CSRF-Token": owner.csrf,
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const CHALLENGE_PATH = "/api/partners/mine/recipient-key/challenge";
const INSTALL_PATH = "/api/partners/mine/recipient-key";

const challenge = (
  owner: Pick<TestOwner, "cookie" | "csrf">,
  body: unknown,
  clock?: Clock,
  headers?: Record<string, string>,
) => handleRecipientKeyChallenge(ownerRequest(owner, "POST", CHALLENGE_PATH, body, headers), clock);

const install = (
  owner: Pick<TestOwner, "cookie" | "csrf">,
  body: unknown,
  clock?: Clock,
  headers?: Record<string, string>,
) => handleInstallRecipientKey(ownerRequest(owner, "PUT", INSTALL_PATH, body, headers), clock);

interface ChallengeWire {
  fingerprint: string;
  envelope: string;
  issuedAt: string;
  expiresAt: string;
}

/** What the partner page does: ask for a challenge and open it with the private half. */
async function answerChallenge(
  owner: Pick<TestOwner, "cookie" | "csrf">,
  keys: { privateKeyPkcs8B64: string; publicKeyRawB64: string },
  clock?: Clock,
) {
  const response = await challenge(owner, { publicKey: keys.publicKeyRawB64 }, clock);
  expect(response.status).toBe(200);
  const wire = (await response.json()) as ChallengeWire;
  const { nonce } = openJson<{ nonce: string }>(keys.privateKeyPkcs8B64, wire.envelope);
  return { wire, nonce };
}

const findPartner = (partnerId: string) =>
  db().partner.findUniqueOrThrow({ where: { id: partnerId } });

async function expectRefusal(response: Response, status: number, error: string) {
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ error, error_description: expect.any(String) });
}

describe("the recipient-key possession challenge", () => {
  it("installs the key once the partner sends back the nonce it opened", async () => {
    const owner = await ownerOf();
    const keys = generateKeyPair();
    const { wire, nonce } = await answerChallenge(owner, keys);
    expect(wire.fingerprint).toBe(recipientKeyFingerprint(keys.publicKeyRawB64));
    // The nonce is base64 of 32 bytes, like the SDKs' fixture's.
    expect(Buffer.from(nonce, "base64")).toHaveLength(32);
    expect(Date.parse(wire.expiresAt) - Date.parse(wire.issuedAt)).toBe(
      RECIPIENT_KEY_CHALLENGE_TTL_MS,
    );

    const response = await install(owner, {
      publicKey: keys.publicKeyRawB64,
      challengeAnswer: nonce,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { fingerprint: string; installedAt: string };
    expect(body.fingerprint).toBe(recipientKeyFingerprint(keys.publicKeyRawB64));

    const partner = await findPartner(owner.partnerId);
    expect(partner.recipientPublicKey).toBe(keys.publicKeyRawB64);
    expect(partner.recipientKeyFingerprint).toBe(recipientKeyFingerprint(keys.publicKeyRawB64));
    expect(partner.recipientKeyInstalledAt?.toISOString()).toBe(body.installedAt);
    expect(keyModeOf(partner)).toBe("partner");
  });

  it("seals a fresh nonce for every challenge", async () => {
    const owner = await ownerOf();
    const keys = generateKeyPair();
    const first = await answerChallenge(owner, keys, { now: () => new Date(1_000) });
    const second = await answerChallenge(owner, keys, { now: () => new Date(2_000) });
    expect(first.nonce).not.toBe(second.nonce);
    expect(first.wire.envelope).not.toBe(second.wire.envelope);
  });

  it("refuses a wrong or missing answer and installs nothing", async () => {
    const owner = await ownerOf();
    const keys = generateKeyPair();
    const { nonce } = await answerChallenge(owner, keys);
    const forged = randomBytes(32).toString("base64");
    const tampered = Buffer.from(nonce, "base64");
    tampered[31] = (tampered[31] ?? 0) ^ 0x01;
    for (const challengeAnswer of [
      forged,
      tampered.toString("base64"),
      "",
      undefined,
      nonce + "x",
    ]) {
      await expectRefusal(
        await install(owner, { publicKey: keys.publicKeyRawB64, challengeAnswer }),
        400,
        "invalid_challenge",
      );
    }
    const partner = await findPartner(owner.partnerId);
    expect(partner.recipientPublicKey).toBeNull();
    expect(partner.recipientKeyFingerprint).toBeNull();
    expect(keyModeOf(partner)).toBe("user");
  });

  it("binds the answer to the public key it was sealed to", async () => {
    const owner = await ownerOf();
    const sealedTo = generateKeyPair();
    const other = generateKeyPair();
    const { nonce } = await answerChallenge(owner, sealedTo);
    await expectRefusal(
      await install(owner, { publicKey: other.publicKeyRawB64, challengeAnswer: nonce }),
      400,
      "invalid_challenge",
    );
    expect((await findPartner(owner.partnerId)).recipientPublicKey).toBeNull();
  });

  it("binds the answer to the partner it was issued for", async () => {
    const owner = await ownerOf();
    const stranger = await ownerOf();
    const keys = generateKeyPair();
    const { nonce } = await answerChallenge(owner, keys);
    await expectRefusal(
      await install(stranger, { publicKey: keys.publicKeyRawB64, challengeAnswer: nonce }),
      400,
      "invalid_challenge",
    );
    expect((await findPartner(stranger.partnerId)).recipientPublicKey).toBeNull();
  });

  it("expires a challenge after ten minutes", async () => {
    const owner = await ownerOf();
    const keys = generateKeyPair();
    const issuedAt = Date.parse("2026-06-09T16:00:00.000Z");
    const { nonce } = await answerChallenge(owner, keys, { now: () => new Date(issuedAt) });
    const body = { publicKey: keys.publicKeyRawB64, challengeAnswer: nonce };

    const late = await install(owner, body, {
      now: () => new Date(issuedAt + RECIPIENT_KEY_CHALLENGE_TTL_MS + 1),
    });
    expect(late.status).toBe(400);
    const refusal = (await late.json()) as { error: string; error_description: string };
    expect(refusal.error).toBe("invalid_challenge");
    expect(refusal.error_description).toMatch(/expired/);
    expect((await findPartner(owner.partnerId)).recipientPublicKey).toBeNull();

    const early = await install(owner, body, { now: () => new Date(issuedAt - 5 * 60 * 1000) });
    await expectRefusal(early, 400, "invalid_challenge");

    const inTime = await install(owner, body, {
      now: () => new Date(issuedAt + RECIPIENT_KEY_CHALLENGE_TTL_MS),
    });
    expect(inTime.status).toBe(200);
    expect((await findPartner(owner.partnerId)).recipientPublicKey).toBe(keys.publicKeyRawB64);
  });

  it("treats a replayed answer for the installed key as a no-op", async () => {
    const owner = await ownerOf();
    const keys = generateKeyPair();
    const { nonce } = await answerChallenge(owner, keys);
    const body = { publicKey: keys.publicKeyRawB64, challengeAnswer: nonce };
    const first = (await (await install(owner, body)).json()) as { installedAt: string };
    const again = await install(owner, body, { now: () => new Date(Date.now() + 60_000) });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { installedAt: string }).installedAt).toBe(first.installedAt);
  });

  it("replaces only the key named in replaces: a replacement confirmed for another key answers 409 key_changed", async () => {
    const owner = await ownerOf();
    const [first, second, third] = [generateKeyPair(), generateKeyPair(), generateKeyPair()];
    const answered = async (keys: typeof first, replaces: string | null) => ({
      publicKey: keys.publicKeyRawB64,
      challengeAnswer: (await answerChallenge(owner, keys)).nonce,
      replaces,
    });
    // A first key, confirmed as replacing none.
    expect((await install(owner, await answered(first, null))).status).toBe(200);
    const firstPrint = recipientKeyFingerprint(first.publicKeyRawB64);
    // Two tabs both confirmed replacing the first key: the second to arrive is refused.
    expect((await install(owner, await answered(second, firstPrint))).status).toBe(200);
    await expectRefusal(
      await install(owner, await answered(third, firstPrint)),
      409,
      "key_changed",
    );
    await expectRefusal(await install(owner, await answered(third, null)), 409, "key_changed");
    const partner = await findPartner(owner.partnerId);
    expect(partner.recipientPublicKey).toBe(second.publicKeyRawB64);
    // Without replaces (the SDKs' and the CLI's body), the install works as before.
    expect(
      (
        await install(owner, {
          publicKey: third.publicKeyRawB64,
          challengeAnswer: (await answerChallenge(owner, third)).nonce,
        })
      ).status,
    ).toBe(200);
  });
});

describe("recipient-key request validation", () => {
  const notOnCurve = Buffer.concat([Buffer.of(0x04), Buffer.alloc(64, 0x01)]).toString("base64");
  const compressed = Buffer.from(generateKeyPair().publicKeyRawB64, "base64");
  const compressedPoint = Buffer.concat([
    Buffer.of(2 + ((compressed[64] ?? 0) & 1)),
    compressed.subarray(1, 33),
  ]).toString("base64");

  it("refuses a public key that is not a raw uncompressed P-256 point", async () => {
    const owner = await ownerOf();
    const valid = generateKeyPair().publicKeyRawB64;
    for (const publicKey of [
      "not base64!",
      notOnCurve,
      compressedPoint,
      valid.replace(/=$/, ""),
      Buffer.from(valid, "base64").toString("base64url"),
    ]) {
      const response = await challenge(owner, { publicKey });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: "invalid_public_key",
        error_description: "Invalid public key: expected a base64 raw uncompressed P-256 point",
      });
      await expectRefusal(
        await install(owner, { publicKey, challengeAnswer: randomBytes(32).toString("base64") }),
        400,
        "invalid_public_key",
      );
    }
  });

  it("refuses a body that is not a JSON object with a publicKey", async () => {
    const owner = await ownerOf();
    await expectRefusal(await challenge(owner, "{"), 400, "invalid_request");
    await expectRefusal(await challenge(owner, {}), 400, "invalid_request");
    await expectRefusal(await challenge(owner, { publicKey: 42 }), 400, "invalid_request");
    await expectRefusal(await install(owner, ["publicKey"]), 400, "invalid_request");
  });
});

describe("who may install a recipient key", () => {
  it("needs the session's CSRF token from this service's origin", async () => {
    const owner = await ownerOf();
    const keys = generateKeyPair();
    const { nonce } = await answerChallenge(owner, keys);
    const body = { publicKey: keys.publicKeyRawB64, challengeAnswer: nonce };
    await expectRefusal(await install({ ...owner, csrf: "" }, body), 403, "csrf");
    await expectRefusal(await install({ ...owner, csrf: "forged" }, body), 403, "csrf");
    await expectRefusal(
      await install(owner, body, undefined, { Origin: "https://evil.example" }),
      403,
      "csrf",
    );
    await expectRefusal(
      await challenge({ ...owner, csrf: "" }, { publicKey: keys.publicKeyRawB64 }),
      403,
      "csrf",
    );
    expect((await findPartner(owner.partnerId)).recipientPublicKey).toBeNull();
  });

  it("refuses a signed-in user who owns no partner, and no session at all", async () => {
    const stranger = await createTestUser();
    const cookie = await signedInCookie(stranger.id);
    const session = await findSessionUser(cookie.split("=")[1]);
    const nonOwner = {
      cookie,
      csrf: sessionCsrfToken({ sessionId: session?.sessionId ?? "" }),
      partnerId: "",
    };
    const keys = generateKeyPair();
    await expectRefusal(
      await challenge(nonOwner, { publicKey: keys.publicKeyRawB64 }),
      403,
      "not_owner",
    );
    await expectRefusal(
      await install(nonOwner, { publicKey: keys.publicKeyRawB64, challengeAnswer: "x" }),
      403,
      "not_owner",
    );
    const anonymous = { cookie: "", csrf: "", partnerId: "" };
    await expectRefusal(
      await challenge(anonymous, { publicKey: keys.publicKeyRawB64 }),
      401,
      "login_required",
    );
  });

  it("refuses an API key with 403 insufficient_scope on every method", async () => {
    const { key } = await mintApiKey(await createTestClient());
    const keys = generateKeyPair();
    const withKey = (method: string, path: string) =>
      new Request(`${ISSUER}${path}`, {
        method,
        headers: { "X-Api-Key": key, "Content-Type": "application/json" },
        ...(method === "GET" ? {} : { body: JSON.stringify({ publicKey: keys.publicKeyRawB64 }) }),
      });
    const responses = [
      await challengeRoute.POST(withKey("POST", CHALLENGE_PATH)),
      await installRoute.PUT(withKey("PUT", INSTALL_PATH)),
      await installRoute.GET(withKey("GET", INSTALL_PATH)),
      await installRoute.DELETE(withKey("DELETE", INSTALL_PATH)),
      await legacyChallengeRoute.POST(withKey("POST", "/api/partner/recipient-key/challenge")),
      await legacyInstallRoute.PUT(withKey("PUT", "/api/partner/recipient-key")),
    ];
    for (const response of responses) {
      expect(response.status).toBe(403);
      expect(response.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
    }
  });
});

describe("the 1.2 route spellings", () => {
  it("install through /api/partner/recipient-key[/challenge] like the current paths", async () => {
    const owner = await ownerOf();
    const keys = generateKeyPair();
    const challenged = await legacyChallengeRoute.POST(
      ownerRequest(owner, "POST", "/api/partner/recipient-key/challenge", {
        publicKey: keys.publicKeyRawB64,
      }),
    );
    expect(challenged.status).toBe(200);
    const { envelope } = (await challenged.json()) as ChallengeWire;
    const { nonce } = openJson<{ nonce: string }>(keys.privateKeyPkcs8B64, envelope);
    const installed = await legacyInstallRoute.PUT(
      ownerRequest(owner, "PUT", "/api/partner/recipient-key", {
        publicKey: keys.publicKeyRawB64,
        challengeAnswer: nonce,
      }),
    );
    expect(installed.status).toBe(200);
    expect((await findPartner(owner.partnerId)).recipientKeyFingerprint).toBe(
      recipientKeyFingerprint(keys.publicKeyRawB64),
    );
  });
});

describe("sealing after the install", () => {
  it("keeps existing tenants' sealing keys and seals new tenants to the partner key", async () => {
    const owner = await ownerOf();
    const userKey = generateKeyPair().publicKeyRawB64;
    const earlyUser = await db().user.update({
      where: { id: (await createTestUser()).id },
      data: { publicKey: userKey, publicKeyAt: new Date() },
    });
    const tenantOf = async (user: { id: string; email: string; publicKey: string | null }) => {
      const partner = await db().partner.findUniqueOrThrow({
        where: { id: owner.partnerId },
        select: { id: true, recipientPublicKey: true },
      });
      const { id } = await db().$transaction((tx) => ensureTenant(tx, { user, partner }));
      return db().tenant.findUniqueOrThrow({ where: { id } });
    };
    const before = await tenantOf(earlyUser);
    expect(before).toMatchObject({ sealingKey: userKey, sealingKeyKind: "user" });

    const keys = generateKeyPair();
    const { nonce } = await answerChallenge(owner, keys);
    const response = await install(owner, {
      publicKey: keys.publicKeyRawB64,
      challengeAnswer: nonce,
    });
    expect(response.status).toBe(200);

    const after = await tenantOf(earlyUser);
    expect(after.id).toBe(before.id);
    expect(after).toMatchObject({ sealingKey: userKey, sealingKeyKind: "user" });

    const newcomer = await tenantOf(await createTestUser());
    expect(newcomer).toMatchObject({ sealingKey: keys.publicKeyRawB64, sealingKeyKind: "partner" });
  });
});
