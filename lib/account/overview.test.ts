import { describe, expect, it } from "vitest";
import { generateKeyPair, openJson } from "../crypto/envelope";
import { db } from "../db/client";
import { connectBank, partnerTenantOf } from "../../test/bank-data";
import { SYSTEM_AUDIT } from "../audit/events";
import { createTestClient, mintApiKey } from "../../test/oauth-fixtures";
import { accountLabel, type OpenedAccount, type OpenedDetails } from "./account-name";
import { endPartnerAccess } from "./end-access";
import { loadAccountOverview } from "./overview";

/**
 * A person with their own key who granted a partner access and connected a
 * bank with three accounts for it (Sandbox Nordbank DK: current, joint,
 * savings), everything sealed to their key.
 */
async function personWithOwnKey() {
  const client = await createTestClient();
  const { user } = await mintApiKey(client);
  const pair = generateKeyPair();
  await db().user.update({
    where: { id: user.id },
    data: { publicKey: pair.publicKeyRawB64, publicKeyAt: new Date() },
  });
  const tenant = await partnerTenantOf(client, user);
  await db().tenant.update({
    where: { id: tenant.id },
    data: { sealingKey: pair.publicKeyRawB64, sealingKeyKind: "user" },
  });
  await connectBank(tenant.id, pair.publicKeyRawB64);
  return { client, user, pair, partnerId: client.partnerId ?? "" };
}

describe("My access: connected banks", () => {
  it("names every account of a connection once the key opens its envelopes, not only the first", async () => {
    const alice = await personWithOwnKey();
    const [bank] = (await loadAccountOverview(alice.user.id)).banks;
    expect(bank?.accounts).toHaveLength(3);
    const labels = (bank?.accounts ?? []).map((account) =>
      accountLabel(
        account.displayNameEnc
          ? openJson<OpenedAccount>(alice.pair.privateKeyPkcs8B64, account.displayNameEnc)
          : null,
        account.detailsEnc
          ? openJson<OpenedDetails>(alice.pair.privateKeyPkcs8B64, account.detailsEnc)
          : null,
      ),
    );
    for (const label of labels) expect(label).toMatch(/\S.* · •••• \w{4}$/);
    expect(new Set(labels).size).toBe(3);
  });

  it("a partner whose access ended is no longer shown as reading its connection", async () => {
    const alice = await personWithOwnKey();
    const before = await loadAccountOverview(alice.user.id);
    expect(before.banks.map((bank) => [bank.partnerId, bank.partnerAccess])).toEqual([
      [alice.partnerId, "live"],
    ]);
    await endPartnerAccess({
      userId: alice.user.id,
      partnerId: alice.partnerId,
      audit: SYSTEM_AUDIT,
    });
    const after = await loadAccountOverview(alice.user.id);
    expect(after.access).toEqual([]);
    expect(after.banks.map((bank) => [bank.status, bank.partnerAccess])).toEqual([
      ["Active", "ended"],
    ]);
  });

  it("a code the partner has yet to exchange counts as access that has not ended", async () => {
    const alice = await personWithOwnKey();
    const tenant = await partnerTenantOf(alice.client, alice.user);
    await db().apiKey.updateMany({
      where: { tenantId: tenant.id },
      data: { revokedAt: new Date() },
    });
    await db().authorizationCode.create({
      data: {
        codeHash: `pending-${tenant.id}`,
        clientId: alice.client.clientId,
        redirectUri: "https://example.com/callback",
        codeChallenge: "x".repeat(43),
        scope: "accounts.read",
        tenantId: tenant.id,
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    const overview = await loadAccountOverview(alice.user.id);
    expect(overview.banks.map((bank) => bank.partnerAccess)).toEqual(["live"]);
  });
});

describe("account names", () => {
  it("the person's name, else the bank's, else the product; with the number's last four", () => {
    const details = {
      accountName: "Lønkonto",
      product: "Everyday",
      iban: "DK50 9570 0001 2345 67",
    };
    expect(accountLabel({ displayName: "Daily" }, details)).toBe("Daily · •••• 4567");
    expect(accountLabel({ displayName: null }, details)).toBe("Lønkonto · •••• 4567");
    expect(accountLabel(null, { product: "Everyday", bban: "95700001234567" })).toBe(
      "Everyday · •••• 4567",
    );
    expect(accountLabel({ displayName: "  " }, null)).toBeNull();
  });
});
