import { createHash, randomBytes, randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as confirmRoute from "../../app/auth/cli/confirm/route";
import * as keyRoute from "../../app/auth/cli/key/route";
import * as tokenRoute from "../../app/auth/cli/token/route";
import * as userinfoRoute from "../../app/oauth/userinfo/route";
import { findSessionUser, type SignedInUser } from "../../lib/auth/sessions";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import { hashApiKey } from "../../lib/keys/api-keys";
import {
  cliConfirmToken,
  cliKeyToken,
  parseCliStart,
  type CliStart,
} from "../../lib/oauth/cli-sign-in";
import { COMMAND_LINE_CLIENT } from "../../lib/oauth/personal-keys";
import { createTestUser, ISSUER, signedInCookie } from "../oauth-fixtures";
import { startRouteServer, type RouteServer } from "../route-server";

/**
 * The command-line sign-in (docs/own-data.md#the-command-line-sign-in): the
 * loopback redirect of RFC 8252 with PKCE S256. Every request goes over HTTP
 * to the routes as the service serves them; the program's requests are made
 * as it makes them (its User-Agent, its JSON body).
 */

const CLI_AGENT = "open-banking-io/cli/dev";

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/auth/cli/confirm": confirmRoute,
    "/auth/cli/token": tokenRoute,
    "/auth/cli/key": keyRoute,
    "/oauth/userinfo": userinfoRoute,
  });
});
afterAll(() => server.close());

const cookieToken = (cookie: string) => cookie.slice(cookie.indexOf("=") + 1);
const ip = () => `198.51.100.${randomInt(1, 255)}`;

/** The program's PKCE pair and state, made as the program makes them (32 random bytes each). */
function program() {
  const verifier = randomBytes(32).toString("base64url");
  const start: CliStart = {
    port: randomInt(20_000, 60_000),
    codeChallenge: createHash("sha256").update(verifier).digest("base64url"),
    state: randomBytes(32).toString("base64url"),
  };
  return { verifier, start };
}

/** A signed-in person, with a registered key unless `withKey` is false. */
async function person(withKey = true) {
  const created = await createTestUser();
  const keys = generateKeyPair();
  const user = withKey
    ? await db().user.update({
        where: { id: created.id },
        data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
      })
    : created;
  const cookie = await signedInCookie(user.id);
  const session = (await findSessionUser(cookieToken(cookie))) as SignedInUser;
  return { user, keys, cookie, session };
}

function formOf(start: CliStart, extra: Record<string, string> = {}) {
  const form = new URLSearchParams({
    port: String(start.port),
    code_challenge: start.codeChallenge,
  });
  if (start.state !== null) form.set("state", start.state);
  for (const [name, value] of Object.entries(extra)) form.set(name, value);
  return form;
}

function confirm(form: URLSearchParams, headers: Record<string, string | undefined>) {
  const sent: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    "X-Forwarded-For": ip(),
  };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  return fetch(`${server.origin}/auth/cli/confirm`, {
    method: "POST",
    redirect: "manual",
    headers: sent,
    body: form.toString(),
  });
}

/** The person allows the program: the code, read from where the browser is sent. */
async function allow(alice: Awaited<ReturnType<typeof person>>, start: CliStart) {
  const response = await confirm(
    formOf(start, { csrf: cliConfirmToken(alice.session, start), decision: "allow" }),
    { Origin: ISSUER, Cookie: alice.cookie },
  );
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location") ?? "");
  return { response, location, code: location.searchParams.get("code") ?? "" };
}

/** POST /auth/cli/token exactly as the program sends it. */
function exchange(body: Record<string, string>) {
  return fetch(`${server.origin}/auth/cli/token`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "User-Agent": CLI_AGENT,
      "X-Forwarded-For": ip(),
    },
    body: JSON.stringify(body),
  });
}

describe("the command-line sign-in", () => {
  it("sends the browser only to the program's loopback listener, with a code that redeems once for a personal key", async () => {
    const alice = await person();
    const { verifier, start } = program();
    const { response, location, code } = await allow(alice, start);
    expect(`${location.protocol}//${location.host}${location.pathname}`).toBe(
      `http://127.0.0.1:${start.port}/callback`,
    );
    expect([...location.searchParams.keys()]).toEqual(["code", "state"]);
    expect(location.searchParams.get("state")).toBe(start.state);
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("cache-control")).toBe("no-store");
    // Only the code's keyed hash is stored.
    const stored = await db().cliSignIn.findFirstOrThrow({ where: { userId: alice.user.id } });
    expect(JSON.stringify(stored)).not.toContain(code);

    const redeemed = await exchange({ code, codeVerifier: verifier });
    expect(redeemed.status).toBe(200);
    expect(redeemed.headers.get("cache-control")).toContain("no-store");
    const body = (await redeemed.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["apiKey", "apiBaseUrl", "user", "prefix"]);
    for (const value of Object.values(body)) expect(typeof value).toBe("string");
    const apiKey = body.apiKey as string;
    expect(body).toEqual({
      apiKey: expect.stringMatching(/^ebk_/),
      apiBaseUrl: ISSUER,
      user: alice.user.email,
      prefix: apiKey.slice(0, 12),
    });
    const userinfo = await fetch(`${server.origin}/oauth/userinfo`, {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(await userinfo.json()).toMatchObject({
      sub: `user:${alice.user.id}`,
      partner_id: null,
      client_id: COMMAND_LINE_CLIENT.id,
    });
  });

  it("refuses a replayed code with a JSON error, and a replay with the right verifier revokes the key it issued", async () => {
    const alice = await person();
    const { verifier, start } = program();
    const { code } = await allow(alice, start);
    const first = await exchange({ code, codeVerifier: verifier });
    const { apiKey } = (await first.json()) as { apiKey: string };

    // Whoever saw only the code cannot end the person's key.
    const guessed = await exchange({ code, codeVerifier: randomBytes(32).toString("base64url") });
    expect(guessed.status).toBe(400);
    expect(await guessed.json()).toEqual({
      error: "invalid_grant",
      error_description: "invalid or expired sign-in code",
    });
    const key = () => db().apiKey.findUniqueOrThrow({ where: { keyHash: hashApiKey(apiKey) } });
    expect((await key()).revokedAt).toBeNull();

    const replayed = await exchange({ code, codeVerifier: verifier });
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get("content-type")).toContain("application/json");
    expect(await replayed.json()).toMatchObject({ error: "invalid_grant" });
    expect((await key()).revokedAt).not.toBeNull();
    const revoked = await db().auditEvent.findFirst({
      where: { type: "api_key.revoked", subject: apiKey.slice(0, 12) },
    });
    expect(revoked?.details).toEqual({ reason: "code_replay" });
  });

  it("refuses a wrong verifier and burns the code", async () => {
    const alice = await person();
    const { verifier, start } = program();
    const { code } = await allow(alice, start);
    const wrong = await exchange({ code, codeVerifier: program().verifier });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });
    const right = await exchange({ code, codeVerifier: verifier });
    expect(right.status).toBe(400);
    expect(
      await db().cliSignIn.count({ where: { userId: alice.user.id, apiKeyId: { not: null } } }),
    ).toBe(0);
  });

  it("refuses an expired code", async () => {
    const alice = await person();
    const { verifier, start } = program();
    const { code } = await allow(alice, start);
    await db().cliSignIn.updateMany({
      where: { userId: alice.user.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const late = await exchange({ code, codeVerifier: verifier });
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("issues one key for many concurrent redemptions of one code, and the others count as its replays", async () => {
    const alice = await person();
    const { verifier, start } = program();
    const { code } = await allow(alice, start);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => exchange({ code, codeVerifier: verifier })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    const keys = await db().apiKey.findMany({
      where: { tenant: { userId: alice.user.id }, clientId: COMMAND_LINE_CLIENT.id },
    });
    expect(keys).toHaveLength(1);
    // A code used twice was seen by someone else: the key it issued is revoked.
    expect(keys[0]?.revokedAt).not.toBeNull();
  });

  it("answers a malformed exchange with a JSON error", async () => {
    for (const body of [
      {},
      { code: "x" },
      { code: "", codeVerifier: "" },
      { code: 1, codeVerifier: 2 },
    ]) {
      const response = await exchange(body as Record<string, string>);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: "invalid_request" });
    }
    const form = await fetch(`${server.origin}/auth/cli/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "code=a&codeVerifier=b",
    });
    expect(form.status).toBe(400);
    const unknown = await exchange({ code: "nope", codeVerifier: program().verifier });
    expect(await unknown.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses a non-loopback or malformed port and a missing or non-S256 challenge, never redirecting", async () => {
    const alice = await person();
    const { start } = program();
    const refused: [string, Record<string, string | string[] | null>][] = [
      ["port", { port: null }],
      ["port", { port: "0" }],
      ["port", { port: "65536" }],
      ["port", { port: "08080" }],
      ["port", { port: "-80" }],
      ["port", { port: "80a" }],
      ["port", { port: "127.0.0.1:8080" }],
      ["port", { port: "evil.example:80" }],
      ["port", { port: ["8080", "8081"] }],
      ["challenge", { code_challenge: null }],
      ["challenge", { code_challenge: "" }],
      // A plain challenge (a verifier itself, 64 characters) or a padded one is no S256 value.
      ["challenge", { code_challenge: randomBytes(48).toString("base64url") }],
      ["challenge", { code_challenge: `${start.codeChallenge}=` }],
      ["method", { code_challenge_method: "plain" }],
      ["method", { code_challenge_method: ["S256", "plain"] }],
      ["state", { state: "a b" }],
    ];
    for (const [problem, change] of refused) {
      const params = formOf(start);
      for (const [name, value] of Object.entries(change)) {
        params.delete(name);
        for (const one of value === null ? [] : Array.isArray(value) ? value : [value]) {
          params.append(name, one);
        }
      }
      expect(parseCliStart(params)).toEqual({ problem });
      params.set("csrf", cliConfirmToken(alice.session, start));
      const response = await confirm(params, { Origin: ISSUER, Cookie: alice.cookie });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.json()).toMatchObject({ error: "invalid_request" });
    }
    expect(parseCliStart(formOf(start))).toEqual(start);
    expect(parseCliStart(formOf({ ...start, state: null }))).toEqual({ ...start, state: null });
    expect(
      parseCliStart(
        new URLSearchParams({
          ...Object.fromEntries(formOf(start)),
          code_challenge_method: "S256",
        }),
      ),
    ).toEqual(start);
    expect(await db().cliSignIn.count({ where: { userId: alice.user.id } })).toBe(0);
  });

  it("confirms only from this service's pages, for the signed-in person's own request", async () => {
    const alice = await person();
    const bob = await person();
    const { start } = program();
    const token = cliConfirmToken(alice.session, start);
    const cases: [string, Response][] = [
      [
        "foreign origin",
        await confirm(formOf(start, { csrf: token }), {
          Origin: "https://evil.example",
          Cookie: alice.cookie,
        }),
      ],
      ["no origin", await confirm(formOf(start, { csrf: token }), { Cookie: alice.cookie })],
      ["no token", await confirm(formOf(start), { Origin: ISSUER, Cookie: alice.cookie })],
      [
        "another session's token",
        await confirm(formOf(start, { csrf: token }), { Origin: ISSUER, Cookie: bob.cookie }),
      ],
      // The token is bound to the port: another listener cannot be swapped in under the click.
      [
        "another port",
        await confirm(formOf({ ...start, port: start.port + 1 }, { csrf: token }), {
          Origin: ISSUER,
          Cookie: alice.cookie,
        }),
      ],
      [
        "another challenge",
        await confirm(
          formOf({ ...start, codeChallenge: program().start.codeChallenge }, { csrf: token }),
          { Origin: ISSUER, Cookie: alice.cookie },
        ),
      ],
    ];
    for (const [label, response] of cases) {
      expect(response.status, label).toBe(403);
      expect(response.headers.get("location"), label).toBeNull();
    }
    // Signed out: back to the start page (which signs in), never to the program.
    const signedOut = await confirm(formOf(start, { csrf: token }), { Origin: ISSUER });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toMatch(/^\/auth\/cli\/start\?port=/);
    // Cancelled: nothing for the program.
    const cancelled = await confirm(formOf(start, { csrf: token, decision: "cancel" }), {
      Origin: ISSUER,
      Cookie: alice.cookie,
    });
    expect(cancelled.headers.get("location")).toBe("/auth/cli/start?cancelled=1");
    expect(
      await db().cliSignIn.count({ where: { userId: { in: [alice.user.id, bob.user.id] } } }),
    ).toBe(0);
  });

  it("sends a person without a key back to set one up on the start page, which registers only its public half", async () => {
    const carol = await person(false);
    const { start } = program();
    const withoutKey = await confirm(
      formOf(start, { csrf: cliConfirmToken(carol.session, start) }),
      { Origin: ISSUER, Cookie: carol.cookie },
    );
    expect(withoutKey.status).toBe(303);
    expect(withoutKey.headers.get("location")).toMatch(/^\/auth\/cli\/start\?/);

    const post = (body: Record<string, string>, headers: Record<string, string>) =>
      fetch(`${server.origin}/auth/cli/key`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": ip(), ...headers },
        body: JSON.stringify(body),
      });
    const key = generateKeyPair().publicKeyRawB64;
    const foreign = await post(
      { csrf: cliKeyToken(carol.session), publicKey: key },
      { Origin: "https://evil.example", Cookie: carol.cookie },
    );
    expect(foreign.status).toBe(403);
    const forged = await post(
      { csrf: "x", publicKey: key },
      { Origin: ISSUER, Cookie: carol.cookie },
    );
    expect(forged.status).toBe(403);
    const bad = await post(
      { csrf: cliKeyToken(carol.session), publicKey: "AAAA" },
      { Origin: ISSUER, Cookie: carol.cookie },
    );
    expect(bad.status).toBe(400);
    const registered = await post(
      { csrf: cliKeyToken(carol.session), publicKey: key },
      { Origin: ISSUER, Cookie: carol.cookie },
    );
    expect(registered.status).toBe(200);
    const stored = await db().user.findUniqueOrThrow({ where: { id: carol.user.id } });
    expect(stored.publicKey).toBe(key);
    expect(stored.keyBackupAt).not.toBeNull();
    // A key is registered once: another one is refused, the first one stays.
    const other = await post(
      { csrf: cliKeyToken(carol.session), publicKey: generateKeyPair().publicKeyRawB64 },
      { Origin: ISSUER, Cookie: carol.cookie },
    );
    expect(other.status).toBe(409);
    expect((await db().user.findUniqueOrThrow({ where: { id: carol.user.id } })).publicKey).toBe(
      key,
    );
  });
});
