import { randomBytes } from "node:crypto";
import {
  newBrowserNonce,
  requestLoginChallenge,
  verifyLoginPin,
  type LoginRequest,
  type PinVerification,
} from "../lib/auth/login-challenges";
import { db } from "../lib/db/client";
import { findLastMessage } from "../lib/mail";
import { uniqueEmail } from "./oauth-fixtures";

/** Sign-in requests and guesses against the run's database, for the limit tests. */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const hex16 = () => randomBytes(2).toString("hex");

/** A client address of its own (a random /64 of the documentation prefix 2001:db8::/32). */
export const uniqueClientIp = () => `2001:db8:${hex16()}:${hex16()}::${hex16()}`;

export function loginRequest(overrides: Partial<LoginRequest> = {}): LoginRequest {
  return {
    email: uniqueEmail("limits"),
    locale: "en",
    partnerName: null,
    flowId: null,
    returnUrl: null,
    browserNonce: newBrowserNonce(),
    clientIp: uniqueClientIp(),
    now: new Date(),
    ...overrides,
  };
}

export interface AskedCode {
  email: string;
  browserNonce: string;
  clientIp: string;
  now: Date;
  pin: string;
  token: string;
}

/** Requests a sign-in mail (which must be sent) and reads its code and link token. */
export async function askForCode(overrides: Partial<LoginRequest> = {}): Promise<AskedCode> {
  const request = loginRequest(overrides);
  const result = await requestLoginChallenge(request);
  if (result.status !== "sent") throw new Error(`no mail sent: ${JSON.stringify(result)}`);
  const mail = await findLastMessage(request.email);
  const token = new URL(mail?.link ?? "http://x/").searchParams.get("token") ?? "";
  return {
    email: request.email,
    browserNonce: request.browserNonce,
    clientIp: request.clientIp,
    now: request.now ?? new Date(),
    pin: mail?.code ?? "",
    token,
  };
}

/** A code that is not `pin`. */
export const wrongPin = (pin: string, offset = 1) =>
  String((Number(pin) + offset) % 1_000_000).padStart(6, "0");

/** One guess at a challenge, from `clientIp` (the challenge's own by default), at `now`. */
export function guess(
  asked: AskedCode,
  pin: string,
  options: { clientIp?: string; now?: Date } = {},
): Promise<PinVerification> {
  return verifyLoginPin({
    email: asked.email,
    pin,
    browserNonce: asked.browserNonce,
    clientIp: options.clientIp ?? asked.clientIp,
    now: options.now ?? asked.now,
  });
}

/** PIN attempts checked against the address's challenges (refused guesses reserve none). */
export async function checkedAttempts(emails: string[]): Promise<number> {
  const sum = await db().loginChallenge.aggregate({
    where: { email: { in: emails } },
    _sum: { attempts: true },
  });
  return sum._sum.attempts ?? 0;
}

export const later = (date: Date, ms: number) => new Date(date.getTime() + ms);
