import { storeBankSession, type StoredSession } from "../../lib/banking/ingest";
import { ensureTenant } from "../../lib/banking/tenants";
import { db } from "../../lib/db/client";
import { sandboxUpstream } from "../../lib/upstream/sandbox";
import { approveSandboxAuthorization } from "../../lib/upstream/sandbox/consent";

/**
 * The benchmarks' big account: a shop's account at Sandbox Handelsbank DK,
 * about 10 000 transactions over two years, connected for a tenant.
 */

const ISSUER = "http://localhost:3000";

async function newTenant(sealingKey: string): Promise<string> {
  const user = await db().user.create({ data: { email: `bench-${Date.now()}@example.com` } });
  const tenant = await db().$transaction((tx) =>
    ensureTenant(tx, { user: { ...user, publicKey: sealingKey }, partner: null }),
  );
  return tenant.id;
}

/** Connects the shop's account for `tenantId` (a new user's tenant when omitted). */
export async function connectShop(sealingKey: string, tenantId?: string) {
  const id = tenantId ?? (await newTenant(sealingKey));
  const sandbox = sandboxUpstream({ baseUrl: ISSUER });
  const { authorizationId } = await sandbox.startAuthorization({
    aspsp: { name: "Sandbox Handelsbank DK", country: "DK" },
    psuType: "business",
    redirectUrl: `${ISSUER}/banks/callback`,
    state: "bench",
    validUntil: new Date(Date.now() + 90 * 86_400_000),
    language: "en",
  });
  const back = new URL(approveSandboxAuthorization(authorizationId) ?? "");
  const session = await sandbox.completeAuthorization({
    code: back.searchParams.get("code") ?? "",
  });
  const stored = await storeBankSession({
    tenantId: id,
    sealingKey,
    upstream: sandbox,
    session,
  });
  return { tenantId: id, session, stored };
}

/** Forgets what the consent fetched and pretends the last sync was two years ago. */
export async function forgetHistory(stored: StoredSession): Promise<void> {
  const accountId = stored.accountIds[0] ?? "";
  await db().transaction.deleteMany({ where: { accountId } });
  await db().connection.update({
    where: { id: stored.connectionId },
    data: { lastSyncedAt: new Date(Date.now() - 723 * 86_400_000) },
  });
}
