import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as backupSaved from "../../app/(flow)/account/key/backup-saved/route";
import { accountCsrfToken } from "../../lib/account/session";
import { findSessionUser, type SignedInUser } from "../../lib/auth/sessions";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { keyedHash } from "../../lib/crypto/keyed-hash";
import { db } from "../../lib/db/client";
import { createTestUser, ISSUER, signedInCookie } from "../oauth-fixtures";
import { startRouteServer, type RouteServer } from "../route-server";

/**
 * "I saved the backup file" on My access (docs/account.md): recorded for the
 * signed-in person's registered key only, from this service's pages only,
 * without a fresh sign-in (it records the person's word and deletes
 * nothing). Every request goes over HTTP to the route as the service serves it.
 */

const PATH = "/account/key/backup-saved";

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({ [PATH]: backupSaved });
});
afterAll(() => server.close());

const cookieToken = (cookie: string) => cookie.slice(cookie.indexOf("=") + 1);

/** A signed-in person with a registered key and no backup confirmed yet. */
async function person() {
  const keys = generateKeyPair();
  const created = await createTestUser();
  const user = await db().user.update({
    where: { id: created.id },
    data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date(), keyBackupAt: null },
  });
  const cookie = await signedInCookie(user.id);
  const session = (await findSessionUser(cookieToken(cookie))) as SignedInUser;
  return { user, keys, cookie, session };
}

function post(
  body: Record<string, unknown>,
  headers: Record<string, string | undefined>,
): Promise<Response> {
  const sent: Record<string, string> = {
    "Content-Type": "application/json",
    "X-Forwarded-For": `198.51.100.${randomInt(1, 255)}`,
  };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  return fetch(`${server.origin}${PATH}`, {
    method: "POST",
    redirect: "manual",
    headers: sent,
    body: JSON.stringify(body),
  });
}

const backupAt = async (userId: string) =>
  (await db().user.findUniqueOrThrow({ where: { id: userId }, select: { keyBackupAt: true } }))
    .keyBackupAt;

describe("POST /account/key/backup-saved", () => {
  it("records when the person saved a backup of their registered key", async () => {
    const alice = await person();
    const before = Date.now();
    const response = await post(
      {
        csrf: accountCsrfToken(alice.session, "backup-saved"),
        publicKey: alice.keys.publicKeyRawB64,
      },
      { Origin: ISSUER, Cookie: alice.cookie },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toContain("no-store");
    const answer = (await response.json()) as { keyBackupAt: string };
    const recorded = await backupAt(alice.user.id);
    expect(recorded?.toISOString()).toBe(answer.keyBackupAt);
    expect(recorded?.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it("an older session may record it: no fresh sign-in is asked for the person's word", async () => {
    const alice = await person();
    await db().browserSession.update({
      where: { idHash: keyedHash("browser-session", cookieToken(alice.cookie)) },
      data: { createdAt: new Date(Date.now() - 6 * 86_400_000) },
    });
    const response = await post(
      {
        csrf: accountCsrfToken(alice.session, "backup-saved"),
        publicKey: alice.keys.publicKeyRawB64,
      },
      { Origin: ISSUER, Cookie: alice.cookie },
    );
    expect(response.status).toBe(200);
    expect(await backupAt(alice.user.id)).not.toBeNull();
  });

  it("a backup of another key (a page left open while the key was replaced) records nothing: 409 key_changed", async () => {
    const alice = await person();
    const response = await post(
      {
        csrf: accountCsrfToken(alice.session, "backup-saved"),
        publicKey: generateKeyPair().publicKeyRawB64,
      },
      { Origin: ISSUER, Cookie: alice.cookie },
    );
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: string }).error).toBe("key_changed");
    expect(await backupAt(alice.user.id)).toBeNull();
  });

  it("refuses another Origin, no session, another action's token, another session's token and a body that is not a key", async () => {
    const alice = await person();
    const bob = await person();
    const good = {
      csrf: accountCsrfToken(alice.session, "backup-saved"),
      publicKey: alice.keys.publicKeyRawB64,
    };
    const refusals: [
      Record<string, unknown>,
      Record<string, string | undefined>,
      number,
      string,
    ][] = [
      [good, { Origin: "https://evil.example", Cookie: alice.cookie }, 403, "csrf"],
      [good, { Cookie: alice.cookie }, 403, "csrf"],
      [good, { Origin: ISSUER }, 401, "login_required"],
      [
        { ...good, csrf: accountCsrfToken(alice.session, "delete") },
        { Origin: ISSUER, Cookie: alice.cookie },
        403,
        "csrf",
      ],
      [
        { ...good, csrf: accountCsrfToken(bob.session, "backup-saved") },
        { Origin: ISSUER, Cookie: alice.cookie },
        403,
        "csrf",
      ],
      [
        { ...good, publicKey: "not a key" },
        { Origin: ISSUER, Cookie: alice.cookie },
        400,
        "invalid_request",
      ],
    ];
    for (const [body, headers, status, error] of refusals) {
      const response = await post(body, headers);
      expect([response.status, ((await response.json()) as { error: string }).error]).toEqual([
        status,
        error,
      ]);
    }
    expect(await backupAt(alice.user.id)).toBeNull();
  });

  it("records it for the signed-in person only, whatever key the body names", async () => {
    const alice = await person();
    const bob = await person();
    const response = await post(
      {
        csrf: accountCsrfToken(alice.session, "backup-saved"),
        publicKey: bob.keys.publicKeyRawB64,
      },
      { Origin: ISSUER, Cookie: alice.cookie },
    );
    expect(response.status).toBe(409);
    expect(await backupAt(alice.user.id)).toBeNull();
    expect(await backupAt(bob.user.id)).toBeNull();
  });
});
