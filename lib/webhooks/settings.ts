import { getEnv, isLoopbackUrl, rawSetting } from "../env";
import { isPublicIpAddress } from "../http/ip-address";
import type { ResolveHost } from "../http/public-address";

/**
 * How webhooks are delivered (docs/events.md#retries): the time an attempt
 * may take, and the waits between attempts, about three days in all.
 *
 * Two settings exist for local runs and tests only, and are read only while
 * ISSUER is a loopback address (a service on the internet never has one):
 * `WEBHOOKS_ALLOW_LOOPBACK=true` lets an endpoint be a loopback address
 * (127.0.0.0/8, ::1), over http as well (a receiver on this machine), and
 * `WEBHOOKS_RETRY_SCHEDULE` replaces the waits (seconds, comma-separated).
 * Every other private or reserved address stays refused.
 */

/**
 * Waits after the 1st, 2nd, … failed attempt, in seconds: 10 attempts over about three
 * days (71½ h; the events page lists them).
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [
  5,
  5 * 60,
  30 * 60,
  2 * 3600,
  5 * 3600,
  10 * 3600,
  14 * 3600,
  20 * 3600,
  20 * 3600,
];

/** The time one attempt may take, connection and answer included. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

/** The most of an answer's body read and kept, in bytes. */
export const RESPONSE_BODY_LIMIT = 1024;

/** Endpoints one partner may have. */
export const MAX_ENDPOINTS_PER_PARTNER = 10;

/** The longest endpoint address accepted. */
export const MAX_URL_LENGTH = 2048;

export interface WebhookNetwork {
  lookup?: ResolveHost;
  isAllowedAddress: (address: string) => boolean;
  /** Whether http:// is accepted (only to an allowed loopback address). */
  allowLoopback: boolean;
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i;

export const isLoopbackAddress = (address: string) => LOOPBACK.test(address);

function localRun(): boolean {
  try {
    return isLoopbackUrl(getEnv().issuer);
  } catch {
    return false;
  }
}

/** Whether loopback receivers are allowed in this process (local runs and tests only). */
export function loopbackAllowed(): boolean {
  return rawSetting("WEBHOOKS_ALLOW_LOOPBACK") === "true" && localRun();
}

/** The address rules in force: public addresses only, plus loopback in a local run that asked. */
export function webhookNetwork(lookup?: ResolveHost): WebhookNetwork {
  const allowLoopback = loopbackAllowed();
  return {
    lookup,
    allowLoopback,
    isAllowedAddress: allowLoopback
      ? (address) => isPublicIpAddress(address) || isLoopbackAddress(address)
      : isPublicIpAddress,
  };
}

/** The waits between attempts, in seconds. */
export function retrySchedule(): readonly number[] {
  const raw = rawSetting("WEBHOOKS_RETRY_SCHEDULE");
  if (raw && localRun()) {
    const waits = raw.split(",").map((part) => Number(part.trim()));
    if (waits.length > 0 && waits.every((wait) => Number.isFinite(wait) && wait >= 0)) {
      return waits;
    }
  }
  return DEFAULT_RETRY_SCHEDULE_SECONDS;
}

/** The time one attempt may take (WEBHOOKS_ATTEMPT_TIMEOUT_MS, 1 to 30 s; 10 s by default). */
export function attemptTimeoutMs(): number {
  const raw = Number(rawSetting("WEBHOOKS_ATTEMPT_TIMEOUT_MS"));
  return Number.isInteger(raw) && raw >= 100 && raw <= 30_000 ? raw : DEFAULT_ATTEMPT_TIMEOUT_MS;
}
