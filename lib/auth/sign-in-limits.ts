import { isIPv6 } from "node:net";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { retryAfter, windowOf } from "../ratelimit/store";

/**
 * The limits that guard a sign-in secret (docs/sign-in-limits.md). They are
 * counted in PostgreSQL, never in the rate-limit store: that store fails open
 * so that its outage is not the service's, which is right for traffic limits
 * and wrong for a limit an attacker would like to see switched off. Sign-in
 * cannot work without PostgreSQL anyway, so when it fails, nothing is sent or
 * checked at all (fail closed). Everything is keyed by keyed hashes: no email
 * or client address is stored in clear.
 */

export interface SignInLimit {
  limit: number;
  windowSeconds: number;
}

/** Sign-in mails. Policies are data; the first refusal wins and later ones are not counted. */
export const MAIL_LIMITS = {
  // Per client address, whatever the email: as many a minute as authorize
  // allows flows, so a shared office address is not locked out.
  "mail-client": { limit: 30, windowSeconds: 60 },
  "mail-address-minute": { limit: 1, windowSeconds: 60 },
  "mail-address": { limit: 5, windowSeconds: 15 * 60 },
} as const satisfies Record<string, SignInLimit>;

export type MailLimitName = keyof typeof MAIL_LIMITS;

/** The keyed hash an email address is counted under (the address is already normalized). */
export const addressKey = (email: string): string => keyedHash("sign-in-limit", `address:${email}`);

/**
 * The keyed hash a client address is counted under. An IPv6 client is
 * counted by its /64, the smallest block a single subscriber is assigned:
 * counting single addresses would hand each attacker 2^64 budgets.
 */
export function clientKey(clientIp: string): string {
  const counted = isIPv6(clientIp) ? `${ipv6Prefix64(clientIp)}::/64` : clientIp;
  return keyedHash("sign-in-limit", `client:${counted}`);
}

/** The first four groups of an IPv6 address, expanded ("2001:db8::1" → "2001:db8:0:0"). */
export function ipv6Prefix64(address: string): string {
  const [head = "", tail] = address.toLowerCase().split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail ("::ffff:192.0.2.1") stands for two groups.
  const width = (list: string[]) => list.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const zeros = Array.from({ length: Math.max(0, 8 - width(left) - width(right)) }, () => "0");
  const all = tail === undefined ? left : [...left, ...zeros, ...right];
  return all
    .slice(0, 4)
    .map((group) => (group.includes(".") ? group : group.replace(/^0+(?=.)/, "")))
    .join(":");
}

export type Refusal = { status: "throttled"; retryAfterSeconds: number };

/**
 * Counts one sign-in mail request against the client address and the email
 * address, in that order. Errors propagate: a request that cannot be counted
 * is not served.
 */
export async function throttleLoginMail(request: {
  email: string;
  clientIp: string;
  now: Date;
}): Promise<Refusal | null> {
  const checks: [MailLimitName, string][] = [
    ["mail-client", clientKey(request.clientIp)],
    ["mail-address-minute", addressKey(request.email)],
    ["mail-address", addressKey(request.email)],
  ];
  for (const [name, key] of checks) {
    const refusal = await countInWindow(name, MAIL_LIMITS[name], key, request.now.getTime());
    if (refusal) return refusal;
  }
  return null;
}

/**
 * Passkey sign-ins, per client address (docs/sign-in-limits.md#passkeys): a
 * passkey cannot be guessed, but each request for options stores a challenge
 * and each response costs a signature check, so a client gets about as many
 * as it may ask for sign-in mails. Options come once per sign-in page shown,
 * so they get twice the room.
 */
export const PASSKEY_LIMITS = {
  "passkey-options-client": { limit: 60, windowSeconds: 60 },
  "passkey-sign-in-client": { limit: 30, windowSeconds: 60 },
} as const satisfies Record<string, SignInLimit>;

export type PasskeyLimitName = keyof typeof PASSKEY_LIMITS;

/** Counts one request for passkey options or one passkey response against the client address. */
export function throttlePasskeySignIn(request: {
  limit: PasskeyLimitName;
  clientIp: string;
  now: Date;
}): Promise<Refusal | null> {
  return countInWindow(
    request.limit,
    PASSKEY_LIMITS[request.limit],
    clientKey(request.clientIp),
    request.now.getTime(),
  );
}

/**
 * Gives back the counts of a mail request whose mail was never sent (the
 * provider refused it or could not be reached). The address limits count
 * mails that reach a mailbox, so they get their count back; the client
 * address keeps its count: it bounds how often one client makes the service
 * call the provider, which happened all the same (docs/sign-in-limits.md).
 */
export async function returnUnsentLoginMail(request: { email: string; now: Date }) {
  const key = addressKey(request.email);
  for (const name of ["mail-address-minute", "mail-address"] as const) {
    const { index } = windowOf(MAIL_LIMITS[name], request.now.getTime());
    await db().signInCounter.updateMany({
      where: { id: `${name}:${key}:${index}`, count: { gt: 0 } },
      data: { count: { decrement: 1 } },
    });
  }
}

/** How long a finished window's counters are kept: far longer than any request runs. */
const FINISHED_WINDOWS_KEPT_MS = 60 * 60_000;

/**
 * A fixed-window counter (aligned to the epoch like the rate-limit store's),
 * incremented by one atomic INSERT … ON CONFLICT DO UPDATE … RETURNING (what
 * Prisma issues for an upsert on the one unique id): concurrent requests each
 * read back their own count, so no burst can overshoot.
 */
async function countInWindow(
  name: string,
  limit: SignInLimit,
  key: string,
  now: number,
): Promise<Refusal | null> {
  const { index, resetsAt } = windowOf(limit, now);
  const counter = await db().signInCounter.upsert({
    where: { id: `${name}:${key}:${index}` },
    create: { id: `${name}:${key}:${index}`, count: 1, expiresAt: new Date(resetsAt) },
    update: { count: { increment: 1 } },
    select: { count: true },
  });
  // The first count of a window clears the windows that have long been over
  // (by the wall clock, not `now`, which tests move). Not the one that just
  // ended: a request that started in it and is still running counts there,
  // and would find its window's count gone and start again from one.
  if (counter.count === 1) {
    await db().signInCounter.deleteMany({
      where: { expiresAt: { lt: new Date(Date.now() - FINISHED_WINDOWS_KEPT_MS) } },
    });
  }
  if (counter.count <= limit.limit) return null;
  return { status: "throttled", retryAfterSeconds: retryAfter(resetsAt, now) };
}
