import { keyedHash } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";
import { db } from "../db/client";
import { getEnv } from "../env";
import { upstream } from "../upstream";
import { toStoredPsuHeaders } from "../upstream/psu-headers";
import type { Aspsp, PsuType } from "../upstream/types";

/** How long the bank's callback of a started consent is taken. */
export const AUTHORIZATION_LIFETIME_MS = 30 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ConsentStart {
  /** The hosted flow the consent belongs to; null for one started by the person. */
  flowId: string | null;
  /** The tenant it is stored for when no flow names it. */
  tenantId?: string;
  aspsp: Aspsp;
  psuType: PsuType;
  /** The connection a renewal replaces in place. */
  renewConnectionId?: string | null;
  /** The bank's consent page's language. */
  language: string;
  /** The tenant's subject: the bank sees the same keyed id for it every time. */
  subject: string;
}

/**
 * Starts a bank consent (/docs/flow): records the pending authorization,
 * bound to the callback by a random state of which only the keyed hash is
 * kept, and asks the aggregator for the bank's consent page, for as long as
 * the bank allows. Answers that page's address; an aggregator's refusal is
 * thrown as it came, for the caller to answer in its own terms.
 */
export async function startBankConsent(start: ConsentStart): Promise<string> {
  const { aspsp, psuType } = start;
  const state = randomToken();
  const now = new Date();
  await db().bankAuthorization.create({
    data: {
      flowId: start.flowId,
      ...(start.tenantId && { tenantId: start.tenantId }),
      stateHash: keyedHash("bank-state", state),
      upstream: upstream().name,
      aspspName: aspsp.name,
      aspspCountry: aspsp.country,
      psuType,
      renewConnectionId: start.renewConnectionId ?? null,
      // Recorded on the connection, so that a sync knows what the bank requires (/docs/sync).
      requiredPsuHeaders: toStoredPsuHeaders(aspsp.requiredPsuHeaders),
      expiresAt: new Date(now.getTime() + AUTHORIZATION_LIFETIME_MS),
    },
  });
  const started = await upstream().startAuthorization({
    aspsp: { name: aspsp.name, country: aspsp.country },
    psuType,
    redirectUrl: `${getEnv().issuer}/banks/callback`,
    state,
    validUntil: new Date(now.getTime() + aspsp.maxConsentDays * DAY_MS),
    language: start.language,
    psuId: keyedHash("psu-id", start.subject),
  });
  return started.url;
}
