import { db } from "../db/client";
import { getEnv } from "../env";
import { clearCookie, cookieName, readCookie, serializeCookie } from "../http/cookies";
import { keyedHash } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";

/**
 * Browser sessions: an opaque 256-bit id in an HttpOnly, SameSite=Lax cookie
 * (Secure and `__Host-` on https); only its keyed hash is stored.
 */

export const SESSION_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

const isHttps = () => getEnv().issuer.startsWith("https://");
export const sessionCookieName = () => cookieName("bc_session", isHttps());

export interface SignedInUser {
  sessionId: string;
  userId: string;
  email: string;
  publicKey: string | null;
  locale: string | null;
}

/** Starts a session; returns the Set-Cookie value for the response. */
export async function createBrowserSession(userId: string, now = new Date()): Promise<string> {
  const token = randomToken();
  await db().browserSession.create({
    data: {
      idHash: keyedHash("browser-session", token),
      userId,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000),
    },
  });
  return serializeCookie(sessionCookieName(), token, {
    maxAgeSeconds: SESSION_LIFETIME_SECONDS,
    https: isHttps(),
  });
}

/** The signed-in user of a request, or null (no cookie, unknown or expired session). */
export function findSignedInUser(request: Request, now = new Date()): Promise<SignedInUser | null> {
  return findSessionUser(readCookie(request, sessionCookieName()), now);
}

/** The user a session-cookie value stands for, or null (server components read the cookie). */
export async function findSessionUser(
  token: string | null | undefined,
  now = new Date(),
): Promise<SignedInUser | null> {
  if (!token) return null;
  const session = await db().browserSession.findUnique({
    where: { idHash: keyedHash("browser-session", token) },
    include: { user: { select: { email: true, publicKey: true, locale: true } } },
  });
  if (!session || session.expiresAt <= now) return null;
  return {
    sessionId: session.id,
    userId: session.userId,
    email: session.user.email,
    publicKey: session.user.publicKey,
    locale: session.user.locale,
  };
}

/** Ends the request's session, if any; returns the Set-Cookie value that clears it. */
export async function endBrowserSession(request: Request): Promise<string> {
  const token = readCookie(request, sessionCookieName());
  if (token) {
    await db().browserSession.deleteMany({
      where: { idHash: keyedHash("browser-session", token) },
    });
  }
  return clearCookie(sessionCookieName(), isHttps());
}
