import { generateKeyPair } from "../lib/crypto/envelope";
import { db } from "../lib/db/client";
import { storeBankSession } from "../lib/banking/ingest";
import { sandboxUpstream } from "../lib/upstream/sandbox";
import { approveSandboxAuthorization } from "../lib/upstream/sandbox/consent";
import { tenantSubject } from "../lib/banking/tenants";
import { createTestClient, ISSUER, mintApiKey, type TestClient } from "./oauth-fixtures";

/**
 * A partner with a recipient key, a user who went through its flow (an API
 * key from the real token endpoint) and a sandbox bank connected `agoMs`
 * ago: what the data API tests read and sync.
 */
export async function connectedPartnerUser(
  options: { bank?: { name: string; country: string }; agoMs?: number } = {},
) {
  const { client, keys } = await partnerWithRecipientKey();
  const { key, user } = await mintApiKey(client);
  const tenant = await partnerTenantOf(client, user);
  const connected = await connectBank(tenant.id, keys.publicKeyRawB64, options);
  return { client, key, keys, tenantId: tenant.id, ...connected };
}

/** A partner's client, the partner holding a freshly made recipient key (its pair in `keys`). */
export async function partnerWithRecipientKey() {
  const client = await createTestClient();
  const keys = generateKeyPair();
  await db().partner.update({
    where: { id: client.partnerId ?? "" },
    data: { recipientPublicKey: keys.publicKeyRawB64, recipientKeyInstalledAt: new Date() },
  });
  return { client, keys };
}

/** The tenant a user has at the client's partner (made by the token exchange). */
export function partnerTenantOf(client: TestClient, user: { id: string; email: string }) {
  return db().tenant.findUniqueOrThrow({
    where: { subject: tenantSubject(client.partnerId, user) },
  });
}

/** A consent approved at a sandbox bank (by default Sandbox Nordbank DK, personal), as of `at`. */
export async function sandboxConsent(
  options: {
    bank?: { name: string; country: string };
    psuType?: "personal" | "business";
    psuId?: string;
    at?: Date;
  } = {},
) {
  const at = options.at ?? new Date();
  const sandbox = sandboxUpstream({ now: () => at, baseUrl: ISSUER });
  const { authorizationId } = await sandbox.startAuthorization({
    aspsp: options.bank ?? { name: "Sandbox Nordbank DK", country: "DK" },
    ...(options.psuId === undefined ? {} : { psuId: options.psuId }),
    psuType: options.psuType ?? "personal",
    redirectUrl: `${ISSUER}/banks/callback`,
    state: "s",
    validUntil: new Date(at.getTime() + 90 * 86_400_000),
    language: "en",
  });
  const back = new URL(approveSandboxAuthorization(authorizationId, at) ?? "");
  return sandbox.completeAuthorization({ code: back.searchParams.get("code") ?? "" });
}

/** Connects a sandbox bank for a tenant as if it happened `agoMs` ago. */
export async function connectBank(
  tenantId: string,
  sealingKey: string,
  options: { bank?: { name: string; country: string }; agoMs?: number } = {},
) {
  const at = new Date(Date.now() - (options.agoMs ?? 0));
  const sandbox = sandboxUpstream({ now: () => at, baseUrl: ISSUER });
  const session = await sandboxConsent({ ...options, at });
  const stored = await storeBankSession({
    tenantId,
    sealingKey,
    upstream: sandbox,
    session,
    now: at,
  });
  return { session, stored, connectedAt: at };
}
