import type { LoginChallenge } from "../db/generated/client";
import { recordSignIn, recordSignInRefusal, type SignInRefusal } from "../audit/sign-in";
import { db, type Prisma } from "../db/client";
import { normalizeEmail } from "../mail/address";
import {
  browserNonceHashCandidates,
  linkTokenHashCandidates,
  isSameBrowser,
  MAX_PIN_ATTEMPTS,
  pinMatches,
} from "./login-secrets";
import {
  lockPinBudget,
  pinBudgetKeys,
  pinBudgetRefusal,
  recordWrongPin,
  type PinBudgetRefusal,
} from "./pin-budget";

/**
 * Proving a login challenge (docs/protocol.md#sign-in): by the typed PIN, or by the
 * magic link confirmed from the browser that asked. Either way the challenge
 * is consumed by one conditional update, so exactly one of any number of
 * concurrent confirmations signs in (docs/security.md, docs/architecture.md#concurrency-tests-for-invariants).
 */

export type SignedIn = {
  status: "ok";
  userId: string;
  flowId: string | null;
  returnUrl: string | null;
};

export type PinVerification =
  | SignedIn
  | { status: "wrong"; attemptsLeft: number }
  | { status: "locked" }
  | { status: "expired" }
  | PinBudgetRefusal;

type ClosedLink = { status: "used" | "expired" | "unknown" };

export type LinkInspection =
  | { status: "valid"; sameBrowserRequired: true; email: string }
  | { status: "other_browser"; email: string }
  | ClosedLink;

export type LinkConfirmation = SignedIn | { status: "other_browser" } | ClosedLink;

/**
 * The typed code. A try is checked only if the guess budget of the address
 * and of the client address allows it (lib/auth/pin-budget.ts) and one of
 * the challenge's 5 attempts can be reserved. The budget's locks serialize the checks of one address,
 * so however many guesses arrive at once, none is checked beyond a limit.
 */
export async function verifyLoginPin(input: {
  email: string;
  pin: string;
  browserNonce: string;
  /** The stamped client address (lib/http/client-ip.ts). */
  clientIp: string;
  now?: Date;
}): Promise<PinVerification> {
  const now = input.now ?? new Date();
  const email = normalizeEmail(input.email);
  const refused = async <R extends PinVerification>(result: R, refusal: SignInRefusal) => {
    await recordSignInRefusal({ method: "pin", email, refusal, clientIp: input.clientIp });
    return result;
  };
  const challenge = await findNewestOpenChallenge(email, input.browserNonce);
  if (!challenge || challenge.expiresAt <= now) {
    return refused({ status: "expired" }, { reason: "expired" });
  }
  const keys = pinBudgetKeys(email, input.clientIp);
  // Refused guesses are answered without waiting for the locks. A pause says
  // more than "locked" (a new mail would not help), so it is answered first.
  const paused = await pinBudgetRefusal(db(), keys, now);
  if (paused) return refused(paused, { reason: paused.status });
  if (challenge.attempts >= MAX_PIN_ATTEMPTS) {
    return refused({ status: "locked" }, { reason: "locked" });
  }

  // The outcome and, for a refusal, what the audit log records after the
  // transaction (a sign-in is recorded inside it, with the session's start).
  const outcome = await db().$transaction(
    async (tx): Promise<[PinVerification, SignInRefusal | null]> => {
      await lockPinBudget(tx, keys);
      const refusal = await pinBudgetRefusal(tx, keys, now);
      if (refusal) return [refusal, { reason: refusal.status }];
      const attempts = await reservePinAttempt(tx, challenge.id, now);
      if (attempts === null) {
        const closed = await explainClosedPin(tx, challenge.id, now);
        return [closed, { reason: closed.status === "locked" ? "locked" : "expired" }];
      }
      if (pinMatches(challenge.id, input.pin, challenge.pinHash)) {
        const signedIn = await signIn(tx, challenge, now, "pin", input.clientIp);
        return signedIn ? [signedIn, null] : [{ status: "expired" }, { reason: "expired" }];
      }
      const { closed, addressLeft } = await recordWrongPin(tx, keys, now);
      if (closed) return [closed, { reason: closed.status }];
      const attemptsLeft = Math.min(MAX_PIN_ATTEMPTS - attempts, addressLeft);
      // The 5th wrong attempt locks the challenge: only a new code can follow.
      return attemptsLeft > 0
        ? [
            { status: "wrong", attemptsLeft },
            { reason: "wrong_pin", attemptsLeft },
          ]
        : [{ status: "locked" }, { reason: "lock" }];
    },
  );
  const [result, refusal] = outcome;
  return refusal ? refused(result, refusal) : result;
}

/** The newest unconsumed challenge of this email requested from this browser. */
function findNewestOpenChallenge(email: string, browserNonce: string) {
  if (!browserNonce) return Promise.resolve(null);
  return db().loginChallenge.findFirst({
    where: {
      email,
      browserHash: { in: browserNonceHashCandidates(browserNonce) },
      consumedAt: null,
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

type Tx = Prisma.TransactionClient;

/**
 * Counts one attempt if the challenge is open and has attempts left; returns
 * the attempts used so far, or null when none was left. The row lock the
 * update takes makes the number read back exactly this attempt's.
 */
async function reservePinAttempt(tx: Tx, challengeId: string, now: Date): Promise<number | null> {
  const reserved = await tx.loginChallenge.updateMany({
    where: {
      id: challengeId,
      consumedAt: null,
      expiresAt: { gt: now },
      attempts: { lt: MAX_PIN_ATTEMPTS },
    },
    data: { attempts: { increment: 1 } },
  });
  if (reserved.count === 0) return null;
  const row = await tx.loginChallenge.findUniqueOrThrow({
    where: { id: challengeId },
    select: { attempts: true },
  });
  return row.attempts;
}

/** Why a concurrent request closed the challenge under us: still open means out of attempts. */
async function explainClosedPin(
  tx: Tx,
  challengeId: string,
  now: Date,
): Promise<{ status: "locked" | "expired" }> {
  const row = await tx.loginChallenge.findUnique({ where: { id: challengeId } });
  if (row && row.consumedAt === null && row.expiresAt > now) return { status: "locked" };
  return { status: "expired" };
}

/**
 * The magic link's landing page (GET): whether the link can sign in. It
 * consumes nothing, because mail scanners open links (docs/protocol.md#sign-in). Given
 * the browser's login nonce cookie (null when it has none), a link opened in
 * another browser than the one that asked says so at once, so the page does
 * not offer a button that cannot work; the comparison touches nothing.
 */
export async function inspectLoginLink(
  token: string,
  now = new Date(),
  browserNonce?: string | null,
): Promise<LinkInspection> {
  const challenge = await findChallengeByToken(token);
  if (!challenge || linkState(challenge, now) !== "open") return closedLink(challenge, now);
  if (browserNonce !== undefined && !isSameBrowser(browserNonce, challenge.browserHash)) {
    return { status: "other_browser", email: challenge.email };
  }
  return { status: "valid", sameBrowserRequired: true, email: challenge.email };
}

/**
 * The flow a sign-in link was requested for, whatever the link's state: its
 * landing page shows that partner's branding and a way back to it. Only the
 * holder of the link (the mailbox) learns this.
 */
export async function findLinkFlowId(token: string): Promise<string | null> {
  return (await findChallengeByToken(token))?.flowId ?? null;
}

/**
 * The confirm button (POST): only the browser that asked signs in. Another
 * browser is refused without touching the challenge, so the link keeps
 * working in the right one.
 */
export async function confirmLoginLink(input: {
  token: string;
  browserNonce: string | null;
  clientIp?: string | null;
  now?: Date;
}): Promise<LinkConfirmation> {
  const now = input.now ?? new Date();
  const challenge = await findChallengeByToken(input.token);
  const refused = async <R extends Exclude<LinkConfirmation, SignedIn>>(result: R) => {
    const email = challenge?.email ?? null;
    const refusal = { reason: result.status };
    await recordSignInRefusal({ method: "link", email, refusal, clientIp: input.clientIp });
    return result;
  };
  if (!challenge || linkState(challenge, now) !== "open") {
    return refused(closedLink(challenge, now));
  }
  if (!isSameBrowser(input.browserNonce, challenge.browserHash)) {
    return refused({ status: "other_browser" });
  }

  const signedIn = await db().$transaction((tx) =>
    signIn(tx, challenge, now, "link", input.clientIp),
  );
  if (signedIn) return signedIn;
  // Lost the race to a concurrent confirmation (link or PIN), or expired meanwhile.
  return refused(closedLink(await findChallengeByToken(input.token), now, "used"));
}

/** Tokens are 256-bit base64url (43 characters); anything else is not looked up. */
const LINK_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

function findChallengeByToken(token: string): Promise<LoginChallenge | null> {
  if (!LINK_TOKEN_SHAPE.test(token)) return Promise.resolve(null);
  return db().loginChallenge.findFirst({
    where: { linkTokenHash: { in: linkTokenHashCandidates(token) } },
  });
}

/**
 * A link is usable until consumed (by itself, by the PIN, or superseded by a
 * newer request) or expired. A PIN lockout does not close it: the link is a
 * 256-bit secret from the mailbox bound to the browser, nothing to guess.
 */
function linkState(challenge: LoginChallenge | null, now: Date) {
  if (!challenge) return "unknown" as const;
  if (challenge.consumedAt) return "used" as const;
  if (challenge.expiresAt <= now) return "expired" as const;
  return "open" as const;
}

function closedLink(
  challenge: LoginChallenge | null,
  now: Date,
  ifOpen: ClosedLink["status"] = "unknown",
): ClosedLink {
  const state = linkState(challenge, now);
  return { status: state === "open" ? ifOpen : state };
}

/**
 * Consumes the challenge by one conditional update and finds or creates the
 * user in the caller's transaction: the user exists from the first sign-in on,
 * never from a mere request (which would reveal who has an account).
 */
async function signIn(
  tx: Tx,
  challenge: LoginChallenge,
  now: Date,
  method: "pin" | "link",
  clientIp: string | null | undefined,
): Promise<SignedIn | null> {
  const consumed = await tx.loginChallenge.updateMany({
    where: { id: challenge.id, consumedAt: null, expiresAt: { gt: now } },
    data: { consumedAt: now },
  });
  if (consumed.count === 0) return null;
  // INSERT … ON CONFLICT DO NOTHING: two first sign-ins of one address (two
  // browsers) at once both find the one user instead of a unique violation.
  await tx.user.createMany({ data: [{ email: challenge.email }], skipDuplicates: true });
  const user = await tx.user.findUniqueOrThrow({
    where: { email: challenge.email },
    select: { id: true },
  });
  await recordSignIn(tx, {
    userId: user.id,
    method,
    inFlow: challenge.flowId !== null,
    clientIp: clientIp ?? null,
    at: now,
  });
  return {
    status: "ok" as const,
    userId: user.id,
    flowId: challenge.flowId,
    returnUrl: challenge.returnUrl,
  };
}
