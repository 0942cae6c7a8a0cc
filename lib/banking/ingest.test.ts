import { describe, expect, it } from "vitest";
import { generateKeyPair, openJson } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { approveSandboxAuthorization } from "../upstream/sandbox/consent";
import { sandboxUpstream } from "../upstream/sandbox";
import type { Upstream, UpstreamSession } from "../upstream/types";
import { createTestUser } from "../../test/oauth-fixtures";
import { storeBankSession } from "./ingest";
import { INITIAL_HISTORY_DAYS } from "./windows";
import { ensureTenant } from "./tenants";
import { rawSetting, setSetting } from "../env";

const NOW = new Date("2026-11-21T10:00:00Z");
const sandbox = sandboxUpstream({ now: () => NOW, baseUrl: "http://localhost:3000" });

async function sandboxSession(upstream: Upstream = sandbox): Promise<UpstreamSession> {
  const { authorizationId } = await upstream.startAuthorization({
    aspsp: { name: "Sandbox Sparbank SE", country: "SE" },
    psuType: "personal",
    redirectUrl: "http://localhost:3000/banks/callback",
    state: "s",
    validUntil: new Date(NOW.getTime() + 180 * 86_400_000),
    language: "sv",
  });
  const back = new URL(approveSandboxAuthorization(authorizationId, NOW) ?? "");
  return upstream.completeAuthorization({ code: back.searchParams.get("code") ?? "" });
}

async function tenantWithKey() {
  const keys = generateKeyPair();
  const user = await createTestUser();
  const person = await db().user.update({
    where: { id: user.id },
    data: { publicKey: keys.publicKeyRawB64 },
  });
  const tenant = await db().$transaction((tx) => ensureTenant(tx, { user: person, partner: null }));
  return { tenantId: tenant.id, keys };
}

describe("storing a new bank consent", () => {
  it("seals every sensitive field to the tenant key and keeps only keyed hashes of ids", async () => {
    const { tenantId, keys } = await tenantWithKey();
    const session = await sandboxSession();
    const stored = await storeBankSession({
      tenantId,
      sealingKey: keys.publicKeyRawB64,
      upstream: sandbox,
      session,
      now: NOW,
    });
    expect(stored.accountIds).toHaveLength(session.accounts.length);

    const connection = await db().connection.findUniqueOrThrow({
      where: { id: stored.connectionId },
      include: { accounts: { include: { balances: true, transactions: true } } },
    });
    expect(connection).toMatchObject({
      tenantId,
      upstream: "sandbox",
      aspspName: "Sandbox Sparbank SE",
      aspspCountry: "SE",
      psuType: "personal",
      status: "Active",
      upstreamSessionHash: keyedHash("upstream-session", session.sessionId),
    });
    expect(openJson(keys.privateKeyPkcs8B64, connection.upstreamSessionEnc ?? "")).toEqual({
      sessionId: session.sessionId,
    });

    for (const [index, upstreamAccount] of session.accounts.entries()) {
      const account = connection.accounts.find((row) => row.id === stored.accountIds[index]);
      if (!account) throw new Error("account not stored");
      expect(account.currency).toBe("SEK");
      expect(account.uidHash).toBe(keyedHash("uid", upstreamAccount.uid));
      expect(openJson(keys.privateKeyPkcs8B64, account.uidEnc ?? "")).toEqual({
        uid: upstreamAccount.uid,
      });
      expect(openJson(keys.privateKeyPkcs8B64, account.enc ?? "")).toEqual({
        ownerName: upstreamAccount.ownerName,
        iban: upstreamAccount.iban,
        bban: upstreamAccount.bban,
        accountName: upstreamAccount.accountName,
        product: upstreamAccount.product,
      });
      // No plaintext bank data in any stored column.
      expect(JSON.stringify(account)).not.toContain(upstreamAccount.iban ?? "-");

      const balances = await sandbox.getBalances(upstreamAccount.uid);
      expect(account.balances.map((row) => row.balanceType).sort()).toEqual(["ITAV", "ITBD"]);
      for (const row of account.balances) {
        const expected = balances.find((balance) => balance.balanceType === row.balanceType);
        expect(openJson(keys.privateKeyPkcs8B64, row.enc)).toEqual({
          amount: expected?.amount,
          name: expected?.name,
        });
      }

      const oldest = account.transactions.map((row) => row.bookingDate ?? "").sort()[0] ?? "";
      const horizon = new Date(NOW.getTime() - INITIAL_HISTORY_DAYS * 86_400_000);
      expect(oldest >= horizon.toISOString().slice(0, 10)).toBe(true);
      expect(oldest <= new Date(horizon.getTime() + 7 * 86_400_000).toISOString()).toBe(true);
      const newest = account.transactions.reduce((a, b) =>
        (a.bookingDate ?? "") >= (b.bookingDate ?? "") ? a : b,
      );
      const payload = openJson<Record<string, unknown>>(keys.privateKeyPkcs8B64, newest.enc);
      expect(payload.amount).toMatch(/^\d+\.\d{2}$/);
      expect(typeof payload.rawJson).toBe("string");
      expect(Object.keys(payload).sort()).toEqual(
        [
          "amount",
          "creditorName",
          "creditorIban",
          "creditorBban",
          "creditorAgentBic",
          "debtorName",
          "debtorIban",
          "debtorBban",
          "debtorAgentBic",
          "remittanceInformation",
          "note",
          "referenceNumber",
          "exchangeRate",
          "merchantCategoryCode",
          "balanceAfter",
          "balanceAfterCurrency",
          "rawJson",
        ].sort(),
      );
      const hashes = account.transactions.map((row) => row.dedupeHash);
      expect(new Set(hashes).size).toBe(hashes.length);
    }
  });

  it("stores nothing when the upstream fails part-way", async () => {
    const { tenantId, keys } = await tenantWithKey();
    const session = await sandboxSession();
    let calls = 0;
    const failing: Upstream = {
      ...sandbox,
      async getBalances(uid) {
        calls += 1;
        if (calls === 2) throw new Error("bank went away");
        return sandbox.getBalances(uid);
      },
    };
    await expect(
      storeBankSession({
        tenantId,
        sealingKey: keys.publicKeyRawB64,
        upstream: failing,
        session,
        now: NOW,
      }),
    ).rejects.toThrow("bank went away");
    expect(await db().connection.count({ where: { tenantId } })).toBe(0);
    expect(await db().account.count({ where: { tenantId } })).toBe(0);
  });
});
