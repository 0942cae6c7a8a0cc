import { randomUUID } from "node:crypto";
import { db } from "../db/client";
import { getEnv } from "../env";
import type { Locale } from "../i18n/locales";
import { log } from "../log";
import { deliverMail, type MailDelivery } from "../jobs/mail";
import { MailError } from "../mail";
import { renderLoginMail } from "../mail/templates/login";
import { emailSchema } from "../mail/address";
import {
  hashBrowserNonce,
  hashLinkToken,
  hashPin,
  LOGIN_CHALLENGE_LIFETIME_MINUTES,
  newLinkToken,
  newPin,
} from "./login-secrets";
import { returnUnsentLoginMail, throttleLoginMail } from "./sign-in-limits";

export {
  LOGIN_CHALLENGE_LIFETIME_MINUTES,
  MAX_PIN_ATTEMPTS,
  loginNonceCookie,
  loginNonceCookieName,
  newBrowserNonce,
  readLoginNonce,
} from "./login-secrets";
export {
  confirmLoginLink,
  findLinkFlowId,
  inspectLoginLink,
  verifyLoginPin,
  type LinkConfirmation,
  type LinkInspection,
  type PinVerification,
  type SignedIn,
} from "./login-verification";

/**
 * Sign-in by e-mail (docs/protocol.md#sign-in): one mail carries a magic
 * link and a 6-digit PIN. A challenge lives 15 minutes, takes at most 5 PIN
 * attempts (/docs/errors), is used once, and signs in only the browser that asked
 * for it (lib/auth/login-verification.ts). This module is the request side.
 *
 * A request answers the same for known and unknown emails: nothing here
 * looks the address up; the user is created at the first sign-in.
 */

export interface LoginRequest {
  email: string;
  locale: Locale;
  /** The partner the user signs in for, named in the mail; null for a house client. */
  partnerName: string | null;
  flowId: string | null;
  returnUrl: string | null;
  /** This browser's nonce cookie (loginNonceCookie); reuse it across requests. */
  browserNonce: string;
  clientIp: string;
  now?: Date;
}

export type LoginRequestResult =
  | { status: "sent" }
  | { status: "throttled"; retryAfterSeconds: number }
  | { status: "invalid_email" };

/**
 * Mails a new challenge unless a sign-in limit refuses (lib/auth/sign-in-limits.ts,
 * counted in PostgreSQL: a failing rate-limit store does not switch them off).
 */
export async function requestLoginChallenge(input: LoginRequest): Promise<LoginRequestResult> {
  const parsed = emailSchema.safeParse(input.email);
  if (!parsed.success) return { status: "invalid_email" };
  const request = { ...input, email: parsed.data, now: input.now ?? new Date() };

  const refusal = await throttleLoginMail(request);
  if (refusal) {
    log.info("login.throttled", { retry_after_seconds: refusal.retryAfterSeconds });
    return refusal;
  }
  const challenge = await createChallenge(request);
  let delivery: MailDelivery;
  try {
    delivery = await sendLoginMail({ ...request, ...challenge });
  } catch (error) {
    if (!(error instanceof MailError)) throw error;
    await forgetUnsentChallenge(request, challenge.challengeId);
    log.error("login.mail_failed", { reason: error.code, error: error.message });
    throw error;
  }
  if (delivery === "queued") {
    // The provider will be asked again (lib/jobs/mail.ts): the person is told the mail is on
    // its way, and the older mails' codes keep working until the new one arrives.
    log.info("login.challenge_queued", { challenge_id: challenge.challengeId });
    return { status: "sent" };
  }
  await supersedeOlderChallenges(request, challenge.challengeId);
  log.info("login.challenge_sent", { challenge_id: challenge.challengeId });
  return { status: "sent" };
}

async function createChallenge(request: LoginRequest & { now: Date }) {
  if (!request.browserNonce) throw new TypeError("a login challenge needs a browser nonce");
  const challengeId = randomUUID();
  const token = newLinkToken();
  const pin = newPin();
  const { now } = request;
  await db().loginChallenge.create({
    data: {
      id: challengeId,
      email: request.email,
      linkTokenHash: hashLinkToken(token),
      pinHash: hashPin(challengeId, pin),
      expiresAt: new Date(now.getTime() + LOGIN_CHALLENGE_LIFETIME_MINUTES * 60_000),
      flowId: request.flowId,
      returnUrl: request.returnUrl,
      browserHash: hashBrowserNonce(request.browserNonce),
      createdAt: now,
    },
  });
  return { challengeId, token, pin };
}

/**
 * A sent mail supersedes (consumes) the older open challenges of the same
 * email and browser: only the newest mail works, and PIN attempts cannot be
 * spread over several live challenges. Only older ones: of two requests at
 * once, the later one's challenge stays open.
 */
async function supersedeOlderChallenges(request: LoginRequest & { now: Date }, keep: string) {
  await db().loginChallenge.updateMany({
    where: {
      email: request.email,
      browserHash: hashBrowserNonce(request.browserNonce),
      consumedAt: null,
      createdAt: { lt: request.now },
      id: { not: keep },
    },
    data: { consumedAt: request.now },
  });
}

/**
 * A mail the provider did not take (docs/sign-in-limits.md#a-mail-that-was-not-sent):
 * its challenge is closed, since nobody holds its link or code; the older
 * mails of this browser keep working; and the address's mail counts are
 * given back, so the person can try again at once.
 */
async function forgetUnsentChallenge(request: LoginRequest & { now: Date }, challengeId: string) {
  await db().loginChallenge.updateMany({
    where: { id: challengeId, consumedAt: null },
    data: { consumedAt: request.now },
  });
  await returnUnsentLoginMail(request);
}

async function sendLoginMail(
  request: LoginRequest & { now: Date; token: string; pin: string },
): Promise<MailDelivery> {
  const link = `${getEnv().issuer}/login/link?token=${encodeURIComponent(request.token)}`;
  const mail = await renderLoginMail({
    locale: request.locale,
    partnerName: request.partnerName,
    link,
    code: request.pin,
    expiresInMinutes: LOGIN_CHALLENGE_LIFETIME_MINUTES,
  });
  // A MailError propagates: nobody is told "sent" when nothing was. A failure that may
  // pass is queued for another try, until the challenge expires.
  return deliverMail(
    { to: request.email, ...mail, link, code: request.pin },
    {
      kind: "sign_in",
      notAfter: new Date(request.now.getTime() + LOGIN_CHALLENGE_LIFETIME_MINUTES * 60_000),
    },
  );
}
