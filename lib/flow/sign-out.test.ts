import { describe, expect, it } from "vitest";
import { GET as getLogout } from "../../app/logout/route";
import {
  findSessionUser,
  findSignedInUser,
  sessionCookieName,
  signOutToken,
  type SignedInUser,
} from "../auth/sessions";
import { db } from "../db/client";
import { keyedHash } from "../crypto/keyed-hash";
import { sessionCsrfToken } from "../partners/owner-session";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  signedInCookie,
  startTestFlow,
} from "../../test/oauth-fixtures";
import { findBrowserFlow } from "./flows";
import { handleSignOut } from "./sign-out";

const EVIL = "https://evil.example";

function signOutPost(body: Record<string, string>, headers: Record<string, string | null>) {
  const merged: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    Origin: ISSUER,
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return new Request(`${ISSUER}/logout`, {
    method: "POST",
    headers: merged,
    body: new URLSearchParams(body).toString(),
  });
}

/** A signed-in browser: its Cookie header and who it is. */
async function signedInBrowser() {
  const user = await createTestUser();
  const cookie = await signedInCookie(user.id);
  const session = (await findSessionUser(cookie.slice(cookie.indexOf("=") + 1))) as SignedInUser;
  return { user, cookie, session };
}

const sessionRow = (cookie: string) =>
  db().browserSession.findUnique({
    where: { idHash: keyedHash("browser-session", cookie.slice(cookie.indexOf("=") + 1)) },
  });

const requestWith = (cookie: string) => new Request(`${ISSUER}/`, { headers: { cookie } });

describe("sign-out (POST /logout)", () => {
  it("deletes the session's row, clears the cookie and lands on the landing page", async () => {
    const { cookie, session } = await signedInBrowser();
    expect(await sessionRow(cookie)).not.toBeNull();
    const response = await handleSignOut(
      signOutPost({ csrf: signOutToken(session) }, { Cookie: cookie }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const cleared = response.headers.getSetCookie();
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatch(new RegExp(`^${sessionCookieName()}=; Path=/; Max-Age=0; HttpOnly`));
    // Revoked on the server: the old cookie value, replayed, is nobody.
    expect(await sessionRow(cookie)).toBeNull();
    expect(await findSignedInUser(requestWith(cookie))).toBeNull();
  });

  it("inside a flow: back at the same flow's sign-in, with the person taken off the flow", async () => {
    const { user, cookie, session } = await signedInBrowser();
    const client = await createTestClient();
    const { flowId, setCookie } = await startTestFlow(client);
    await db().flow.update({
      where: { id: flowId },
      data: { userId: user.id, step: "banks", consentedAt: new Date() },
    });
    const flowCookie = setCookie.split(";")[0] ?? "";
    const cookies = `${cookie}; ${flowCookie}`;

    const response = await handleSignOut(
      signOutPost({ csrf: signOutToken(session) }, { Cookie: cookies }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/login?returnUrl=%2Flogin%2Fcontinue");
    // Only the session cookie is cleared: the flow stays this browser's.
    expect(response.headers.getSetCookie().map((c) => c.split("=")[0])).toEqual([
      sessionCookieName(),
    ]);
    expect(await sessionRow(cookie)).toBeNull();
    const flow = await findBrowserFlow(requestWith(flowCookie));
    expect(flow?.id).toBe(flowId);
    expect(flow).toMatchObject({ userId: null, step: "login", consentedAt: null });
  });

  it("from the dashboard: lands on the dashboard's sign-in", async () => {
    const { cookie, session } = await signedInBrowser();
    const response = await handleSignOut(
      signOutPost({ csrf: signOutToken(session), from: "dashboard" }, { Cookie: cookie }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/login?returnUrl=%2Fdashboard");
    expect(await sessionRow(cookie)).toBeNull();
  });

  it("refuses a foreign or missing Origin and a missing, forged, other-purpose or other session's token: 403, and the session survives", async () => {
    const { cookie, session } = await signedInBrowser();
    const other = await signedInBrowser();
    const attempts: [Record<string, string>, Record<string, string | null>][] = [
      [{ csrf: signOutToken(session) }, { Origin: EVIL, Cookie: cookie }],
      [{ csrf: signOutToken(session) }, { Origin: null, Cookie: cookie }],
      [{ csrf: signOutToken(session) }, { Origin: "http://localhost:3001", Cookie: cookie }],
      [{}, { Cookie: cookie }],
      [{ csrf: "" }, { Cookie: cookie }],
      [{ csrf: "forged" }, { Cookie: cookie }],
      [{ csrf: sessionCsrfToken(session) }, { Cookie: cookie }],
      [{ csrf: signOutToken(other.session) }, { Cookie: cookie }],
    ];
    for (const [body, headers] of attempts) {
      const response = await handleSignOut(signOutPost(body, headers));
      expect(response.status, JSON.stringify([body, headers])).toBe(403);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    expect(await sessionRow(cookie)).not.toBeNull();
    expect(await findSignedInUser(requestWith(cookie))).toMatchObject({ email: session.email });
  });

  it("a GET never signs out: 405 naming POST, and the session survives", async () => {
    const { cookie, session } = await signedInBrowser();
    const response = getLogout();
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(await findSignedInUser(requestWith(cookie))).toMatchObject({ email: session.email });
  });

  it("without a live session there is nothing to protect: the cookie is cleared (same Origin still required)", async () => {
    const stale = `${sessionCookieName()}=not-a-session`;
    const refused = await handleSignOut(signOutPost({}, { Origin: EVIL, Cookie: stale }));
    expect(refused.status).toBe(403);
    const response = await handleSignOut(signOutPost({}, { Cookie: stale }));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
    expect(response.headers.getSetCookie()[0]).toContain("Max-Age=0");
  });
});
