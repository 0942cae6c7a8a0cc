import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { keyedHash } from "../crypto/keyed-hash";
import {
  createBrowserSession,
  endBrowserSession,
  findSignedInUser,
  SESSION_LIFETIME_SECONDS,
} from "./sessions";
import { createTestUser, ISSUER } from "../../test/oauth-fixtures";

const requestWith = (cookie: string) => new Request(`${ISSUER}/`, { headers: { cookie } });

describe("browser sessions", () => {
  it("sets an opaque HttpOnly, SameSite=Lax cookie and stores only its keyed hash", async () => {
    const user = await createTestUser();
    const setCookie = await createBrowserSession(user.id);
    expect(setCookie).toMatch(
      /^bc_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax$/,
    );
    const token = /^bc_session=([^;]+)/.exec(setCookie)?.[1] ?? "";
    const stored = await db().browserSession.findUniqueOrThrow({
      where: { idHash: keyedHash("browser-session", token) },
    });
    expect(stored.idHash).not.toContain(token);
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBeCloseTo(
      SESSION_LIFETIME_SECONDS * 1000,
      -3,
    );
  });

  it("finds the signed-in user, and no one for unknown or expired sessions", async () => {
    const user = await createTestUser();
    const cookie = (await createBrowserSession(user.id)).split(";")[0] ?? "";
    expect(await findSignedInUser(requestWith(cookie))).toMatchObject({
      userId: user.id,
      email: user.email,
    });
    expect(await findSignedInUser(requestWith("bc_session=unknown"))).toBeNull();
    expect(await findSignedInUser(requestWith(""))).toBeNull();
    const later = new Date(Date.now() + (SESSION_LIFETIME_SECONDS + 1) * 1000);
    expect(await findSignedInUser(requestWith(cookie), later)).toBeNull();
  });

  it("signs out: the session row is gone and the cookie is cleared", async () => {
    const user = await createTestUser();
    const cookie = (await createBrowserSession(user.id)).split(";")[0] ?? "";
    const cleared = await endBrowserSession(requestWith(cookie));
    expect(cleared).toContain("Max-Age=0");
    expect(await findSignedInUser(requestWith(cookie))).toBeNull();
  });
});
