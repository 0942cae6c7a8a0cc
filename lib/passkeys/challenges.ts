import { db, Prisma } from "../db/client";
import { isUuid } from "../db/uuid";

/**
 * WebAuthn challenges (docs/sessions.md#passkeys): each is made for one
 * ceremony, a registration by a signed-in person or a sign-in by anybody, and
 * lives five minutes. Checking a response takes its challenge out of the
 * store first, whatever the outcome, so no challenge is ever checked twice:
 * a replayed response finds nothing. An expired one is refused like a used one.
 */

export const CHALLENGE_LIFETIME_SECONDS = 5 * 60;

export type ChallengePurpose = "register" | "authenticate";

/** How long challenges that expired are kept before they are cleared (a sweep per new challenge). */
const EXPIRED_KEPT_MS = 60 * 60_000;

/** Stores `challenge` (base64url, as the options carry it); returns its id. */
export async function storeChallenge(input: {
  challenge: string;
  purpose: ChallengePurpose;
  userId: string | null;
  now?: Date;
}): Promise<string> {
  const now = input.now ?? new Date();
  // Challenges nobody answered: cleared by the wall clock, not `now`, which tests move.
  await db().passkeyChallenge.deleteMany({
    where: { expiresAt: { lt: new Date(Date.now() - EXPIRED_KEPT_MS) } },
  });
  const row = await db().passkeyChallenge.create({
    data: {
      challenge: input.challenge,
      purpose: input.purpose,
      userId: input.userId,
      expiresAt: new Date(now.getTime() + CHALLENGE_LIFETIME_SECONDS * 1000),
    },
    select: { id: true },
  });
  return row.id;
}

/**
 * Takes the challenge `id` out of the store and answers its value, when it
 * was made for `purpose` (and, for a registration, for `userId`) and has not
 * expired; null otherwise. Deleting is the check: of two requests racing with
 * one challenge, only one gets it.
 */
export async function takeChallenge(input: {
  id: unknown;
  purpose: ChallengePurpose;
  userId: string | null;
  now?: Date;
}): Promise<string | null> {
  if (typeof input.id !== "string" || !isUuid(input.id)) return null;
  const now = input.now ?? new Date();
  let row;
  try {
    row = await db().passkeyChallenge.delete({ where: { id: input.id } });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025") {
      return null;
    }
    throw error;
  }
  if (row.purpose !== input.purpose || row.userId !== input.userId) return null;
  if (row.expiresAt <= now) return null;
  return row.challenge;
}
