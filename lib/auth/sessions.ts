import { db } from "../db/client";
import { getEnv } from "../env";
import { clearCookie, cookieName, readCookie, serializeCookie } from "../http/cookies";
import { keyedHash, keyedHashCandidates } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";

/**
 * Browser sessions: an opaque 256-bit id in an HttpOnly, SameSite=Lax cookie
 * (Secure and `__Host-` on https); only its keyed hash is stored. Lifetime,
 * sign-out and re-confirmation are described in docs/sessions.md.
 */

export const SESSION_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

/**
 * How long after signing in a session may still approve a partner-key flow
 * in one click. An older session confirms the sign-in again first (a fresh
 * mail code or link), so a browser left signed in cannot grant a partner
 * access for whoever sits down at it next.
 */
export const FRESH_SIGN_IN_SECONDS = 15 * 60;

const isHttps = () => getEnv().issuer.startsWith("https://");
export const sessionCookieName = () => cookieName("bc_session", isHttps());

export interface SignedInUser {
  sessionId: string;
  userId: string;
  email: string;
  publicKey: string | null;
  locale: string | null;
  /** When this session was made, i.e. when the person last proved the address. */
  signedInAt: Date;
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

/**
 * Starts a session in place of the browser's current one, whose row is
 * deleted: signing in again (another address, or re-confirming) leaves no
 * older session behind that a copied cookie could still use.
 */
export async function replaceBrowserSession(request: Request, userId: string): Promise<string> {
  await endBrowserSession(request);
  return createBrowserSession(userId);
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
  const session = await db().browserSession.findFirst({
    where: { idHash: { in: keyedHashCandidates("browser-session", token) } },
    include: { user: { select: { email: true, publicKey: true, locale: true } } },
  });
  if (!session || session.expiresAt <= now) return null;
  return {
    sessionId: session.id,
    userId: session.userId,
    email: session.user.email,
    publicKey: session.user.publicKey,
    locale: session.user.locale,
    signedInAt: session.createdAt,
  };
}

/** The session was made within FRESH_SIGN_IN_SECONDS. */
export function isFreshSignIn(user: Pick<SignedInUser, "signedInAt">, now = new Date()): boolean {
  return now.getTime() - user.signedInAt.getTime() <= FRESH_SIGN_IN_SECONDS * 1000;
}

/**
 * The token every sign-out form carries: bound to the session it ends and to
 * this one purpose, unforgeable without the server secret. With the Origin
 * check it keeps other sites from signing people out.
 */
export const signOutToken = (user: Pick<SignedInUser, "sessionId">) =>
  keyedHash("sign-out", user.sessionId);

/**
 * Ends the request's session, if any: its row is deleted, so the cookie's
 * value is worthless even where a copy survives. Returns the Set-Cookie value
 * that clears the cookie.
 */
export async function endBrowserSession(request: Request): Promise<string> {
  const token = readCookie(request, sessionCookieName());
  if (token) {
    await db().browserSession.deleteMany({
      where: { idHash: { in: keyedHashCandidates("browser-session", token) } },
    });
  }
  return clearCookie(sessionCookieName(), isHttps());
}
