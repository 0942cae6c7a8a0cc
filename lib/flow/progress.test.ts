import { describe, expect, it } from "vitest";
import { generateKeyPair } from "../crypto/envelope";
import { db } from "../db/client";
import { ensureTenant, tenantSubject } from "../banking/tenants";
import { connectBank } from "../../test/bank-data";
import { createTestClient, createTestUser, startTestFlow } from "../../test/oauth-fixtures";
import { flowProgress, loadFlowProgress, type ProgressStep } from "./steps";

/** The step indicator: which steps a flow shows and where the screen is among them. */

const plan = (input: Partial<Parameters<typeof flowProgress>[0]> & { screen: ProgressStep }) =>
  flowProgress({ keyMode: "user", hadKey: false, hadBank: false, renewing: false, ...input });

describe("step indicator derivation", () => {
  it("shows sign in, key, bank, approve to a new user in user-key mode", () => {
    expect(plan({ screen: "key" })).toEqual({
      steps: ["sign_in", "key", "bank", "approve"],
      current: 1,
    });
  });

  it("orders partner-key mode sign in, approve, bank", () => {
    expect(plan({ keyMode: "partner", screen: "bank" })).toEqual({
      steps: ["sign_in", "approve", "bank"],
      current: 2,
    });
  });

  it("leaves out what a returning user already has", () => {
    expect(plan({ hadKey: true, screen: "bank" })).toEqual({
      steps: ["sign_in", "bank", "approve"],
      current: 1,
    });
    expect(plan({ hadKey: true, hadBank: true, screen: "approve" })).toEqual({
      steps: ["sign_in", "approve"],
      current: 1,
    });
    expect(plan({ keyMode: "partner", hadBank: true, screen: "approve" })).toEqual({
      steps: ["sign_in", "approve"],
      current: 1,
    });
  });

  it("puts the bank first for a renewal, and keeps a skipped screen in its place", () => {
    expect(plan({ keyMode: "partner", hadBank: true, renewing: true, screen: "bank" })).toEqual({
      steps: ["sign_in", "bank", "approve"],
      current: 1,
    });
    // Adding another bank from consent, or importing a key on a new device.
    expect(plan({ hadKey: true, hadBank: true, screen: "bank" })).toEqual({
      steps: ["sign_in", "bank", "approve"],
      current: 1,
    });
    expect(plan({ hadKey: true, screen: "key" })).toEqual({
      steps: ["sign_in", "key", "bank", "approve"],
      current: 1,
    });
  });
});

describe("step indicator from the database", () => {
  async function userFlow(options: { keyBefore: boolean; bankBefore: boolean }) {
    const client = await createTestClient();
    const user = await createTestUser();
    const keys = generateKeyPair();
    if (options.keyBefore) {
      await db().user.update({
        where: { id: user.id },
        data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date(Date.now() - 60_000) },
      });
    }
    if (options.bankBefore) {
      const person = await db().user.findUniqueOrThrow({ where: { id: user.id } });
      const tenant = await db().$transaction((tx) =>
        ensureTenant(tx, {
          user: { ...person, publicKey: keys.publicKeyRawB64 },
          partner: { id: client.partnerId ?? "", recipientPublicKey: null },
        }),
      );
      await connectBank(tenant.id, keys.publicKeyRawB64, { agoMs: 60_000 });
      await db().connection.updateMany({
        where: { tenantId: tenant.id },
        data: { createdAt: new Date(Date.now() - 60_000) },
      });
    }
    const { flowId } = await startTestFlow(client);
    await db().flow.update({ where: { id: flowId }, data: { userId: user.id } });
    const flow = await db().flow.findUniqueOrThrow({
      where: { id: flowId },
      include: {
        client: { select: { partner: { select: { id: true, recipientPublicKey: true } } } },
      },
    });
    const person = await db().user.findUniqueOrThrow({ where: { id: user.id } });
    return { flow, person, subject: tenantSubject(client.partnerId, user), keys };
  }

  it("counts a key and a bank made during this flow as steps of it", async () => {
    const { flow, person, keys } = await userFlow({ keyBefore: false, bankBefore: false });
    // The key is made on this flow's setup screen: the plan does not shrink.
    await db().user.update({
      where: { id: person.id },
      data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
    });
    const now = await db().user.findUniqueOrThrow({ where: { id: person.id } });
    expect(await loadFlowProgress(flow, now, "bank")).toEqual({
      steps: ["sign_in", "key", "bank", "approve"],
      current: 2,
    });
  });

  it("shows a returning user with a key and a bank only sign in and approve", async () => {
    const { flow, person } = await userFlow({ keyBefore: true, bankBefore: true });
    expect(await loadFlowProgress(flow, person, "approve")).toEqual({
      steps: ["sign_in", "approve"],
      current: 1,
    });
  });

  it("shows every step of the key mode before anyone signed in", async () => {
    const { flow } = await userFlow({ keyBefore: false, bankBefore: false });
    expect(await loadFlowProgress(flow, null, "sign_in")).toEqual({
      steps: ["sign_in", "key", "bank", "approve"],
      current: 0,
    });
  });
});
