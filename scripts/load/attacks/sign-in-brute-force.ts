import { randomBytes, randomInt } from "node:crypto";
import { db } from "../../../lib/db/client";
import { PIN_BUDGET } from "../../../lib/auth/pin-budget";
import { MAIL_LIMITS } from "../../../lib/auth/sign-in-limits";
import { forwardedFor, runWorkers, type HttpClient } from "../../lib/load-client";
import type { RunRedis } from "../redis";

/**
 * The sign-in brute force with the rate-limit store down: Redis is killed (a
 * no-op when the run already did), then workers ask for sign-in mails and
 * fire PIN guesses at the login forms, as fast as the service answers.
 *
 *   1. one address, from a new client address every time (a botnet on one victim);
 *   2. many addresses from one client address (one attacker spraying): the
 *      client address's ceiling, plus one guess at each address without a
 *      wrong code of its own.
 *
 * What counts is read from the service's database: mails sent (challenges
 * created), guesses checked (attempts reserved on those challenges). Every
 * figure must stay within its limit (docs/sign-in-limits.md), or the run fails.
 */

const MINUTE = 60_000;
const CONCURRENCY = 16;
const GUESSES_PER_MAIL = 5;
const SPRAYED_ADDRESSES = 60;

export interface BruteForceOptions {
  http: HttpClient;
  origin: string;
  redis: RunRedis;
  /** How long each of the two attacks lasts. */
  durationMs: number;
  /** The run's check: a false `ok` fails the run with `message`. */
  check: (ok: boolean, message: string) => void;
}

interface Tally {
  mailRequests: number;
  guesses: number;
  answers: Map<string, number>;
}

const windowsTouched = (startedAt: number, endedAt: number, windowMs: number) =>
  Math.floor(endedAt / windowMs) - Math.floor(startedAt / windowMs) + 1;

/** A login form's post, from the browser of simulated client `client`. */
function formPost(
  origin: string,
  path: string,
  fields: Record<string, string>,
  client: number,
  cookie?: string,
) {
  return {
    method: "POST",
    path,
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: origin,
      ...forwardedFor(client),
      ...(cookie && { Cookie: cookie }),
    },
    body: new URLSearchParams(fields).toString(),
  };
}

/** What the login screen was sent back to say: its `error`, "sent", or the redirect's target. */
function answerOf(status: number, location: string | undefined): string {
  if (status !== 303 || !location) return `status ${status}`;
  const url = new URL(location, "http://service");
  if (url.pathname !== "/login") return "signed in";
  return url.searchParams.get("error") ?? "sent";
}

/** One attacker's browser: asks for a mail, then guesses the code five times. */
async function mailThenGuess(
  options: BruteForceOptions,
  tally: Tally,
  email: string,
  client: number,
) {
  const { http, origin } = options;
  const count = (answer: string) => tally.answers.set(answer, (tally.answers.get(answer) ?? 0) + 1);
  const asked = await http(formPost(origin, "/login/request", { email }, client));
  tally.mailRequests += 1;
  count(`mail: ${answerOf(asked.status, asked.headers.location)}`);
  const nonce = [asked.headers["set-cookie"] ?? []].flat()[0]?.split(";")[0] ?? "";
  for (let i = 0; i < GUESSES_PER_MAIL; i += 1) {
    const code = String(randomInt(1_000_000)).padStart(6, "0");
    const answer = await http(formPost(origin, "/login/code", { email, code }, client, nonce));
    tally.guesses += 1;
    count(`code: ${answerOf(answer.status, answer.headers.location)}`);
  }
}

async function attack(
  options: BruteForceOptions,
  next: () => { email: string; client: number },
): Promise<Tally & { startedAt: number; endedAt: number }> {
  const tally: Tally = { mailRequests: 0, guesses: 0, answers: new Map() };
  const startedAt = Date.now();
  const stopAt = startedAt + options.durationMs;
  await runWorkers(
    CONCURRENCY,
    () => Date.now() >= stopAt,
    async () => {
      const { email, client } = next();
      await mailThenGuess(options, tally, email, client);
    },
  );
  return { ...tally, startedAt, endedAt: Date.now() };
}

/** Mails sent (challenges created) and guesses checked (attempts reserved), from the database. */
async function countedFor(emails: string[]) {
  const challenges = await db().loginChallenge.aggregate({
    where: { email: { in: emails } },
    _count: { _all: true },
    _sum: { attempts: true },
  });
  return { mails: challenges._count._all, checked: challenges._sum.attempts ?? 0 };
}

function report(label: string, tally: Tally, mails: number, checked: number) {
  const answers = [...tally.answers]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([answer, n]) => `${answer} ×${n}`)
    .join(", ");
  console.log(`  ${label}:`);
  console.log(
    `    mails sent ${mails} of ${tally.mailRequests} asked for; PIN guesses ${tally.guesses}: ` +
      `${checked} checked, ${tally.guesses - checked} refused`,
  );
  console.log(`    answers: ${answers}`);
}

export async function signInBruteForce(options: BruteForceOptions): Promise<void> {
  await options.redis.kill();
  const seconds = (options.durationMs / 1000).toFixed(0);
  console.log(`sign-in brute force with Redis down (${seconds} s per attack):`);
  const run = randomBytes(4).toString("hex");

  // 1. One address, each browser from a client address of its own.
  const victim = `victim-${run}@example.com`;
  let client = 40_000;
  const one = await attack(options, () => ({ email: victim, client: client++ }));
  const onVictim = await countedFor([victim]);
  report("one address, a new client address per browser", one, onVictim.mails, onVictim.checked);
  const minutes = windowsTouched(one.startedAt, one.endedAt, MINUTE);
  const quarters = windowsTouched(one.startedAt, one.endedAt, 15 * MINUTE);
  const mailCeiling = Math.min(
    minutes * MAIL_LIMITS["mail-address-minute"].limit,
    quarters * MAIL_LIMITS["mail-address"].limit,
  );
  const guessCeiling = Math.min(PIN_BUDGET.addressPerDay, GUESSES_PER_MAIL * onVictim.mails);
  console.log(`    limits: ≤ ${mailCeiling} mails, ≤ ${guessCeiling} guesses checked`);
  options.check(
    onVictim.mails <= mailCeiling,
    `sign-in brute force: ${onVictim.mails} mails to one address, limit ${mailCeiling}`,
  );
  options.check(
    onVictim.checked <= guessCeiling,
    `sign-in brute force: ${onVictim.checked} PIN guesses checked for one address, limit ${guessCeiling}`,
  );

  // 2. Many addresses, all from one client address.
  const sprayed = Array.from(
    { length: SPRAYED_ADDRESSES },
    (_, i) => `sprayed-${run}-${i}@example.com`,
  );
  let turn = 0;
  const attacker = 39_999;
  const many = await attack(options, () => ({
    email: sprayed[turn++ % sprayed.length] ?? "",
    client: attacker,
  }));
  const fromAttacker = await countedFor(sprayed);
  report(
    `${SPRAYED_ADDRESSES} addresses from one client address`,
    many,
    fromAttacker.mails,
    fromAttacker.checked,
  );
  const clientMailCeiling =
    windowsTouched(many.startedAt, many.endedAt, MINUTE) * MAIL_LIMITS["mail-client"].limit;
  // The client address's ceiling, and one guess at each address that had no
  // wrong code of its own before (the ceiling does not lock those out).
  const clientGuessCeiling =
    Math.min(PIN_BUDGET.clientPerHour, PIN_BUDGET.clientPerDay) + SPRAYED_ADDRESSES;
  console.log(`    limits: ≤ ${clientMailCeiling} mails, ≤ ${clientGuessCeiling} guesses checked`);
  options.check(
    fromAttacker.mails <= clientMailCeiling,
    `sign-in brute force: ${fromAttacker.mails} mails from one client address, limit ${clientMailCeiling}`,
  );
  options.check(
    fromAttacker.checked <= clientGuessCeiling,
    `sign-in brute force: ${fromAttacker.checked} PIN guesses checked from one client address, limit ${clientGuessCeiling}`,
  );
  for (const tally of [one, many]) {
    const odd = [...tally.answers.keys()].filter((answer) => answer.includes("status"));
    options.check(odd.length === 0, `sign-in brute force: unexpected answers ${odd.join(", ")}`);
  }
}
