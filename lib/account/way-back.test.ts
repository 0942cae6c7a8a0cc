import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { partnerSiteOf } from "../flow/flows";
import {
  createTestClient,
  createTestUser,
  mintApiKey,
  REDIRECT_URI,
  startTestFlow,
} from "../../test/oauth-fixtures";
import { deletedPagePath, wayBackAfterDeletion, wayBackForUser } from "./way-back";

/** "Back to the partner" on My access, and after everything was deleted. */

const cookieValue = (setCookie: string) => (setCookie.split(";")[0] ?? "").split("=")[1] ?? "";
const SITE = partnerSiteOf(REDIRECT_URI) ?? "";

async function named(client: { partnerId: string | null }, displayName: string) {
  await db().partner.update({ where: { id: client.partnerId ?? "" }, data: { displayName } });
}

describe("the way back to the partner", () => {
  it("from a live flow in this browser: the flow's current screen, named as the partner", async () => {
    const client = await createTestClient();
    await named(client, "Pocket Ledger");
    const user = await createTestUser();
    const { flowId, setCookie } = await startTestFlow(client);
    await db().flow.update({ where: { id: flowId }, data: { userId: user.id, step: "consent" } });
    const back = await wayBackForUser({ flowCookie: cookieValue(setCookie), userId: user.id });
    expect(back).toEqual({
      partnerId: client.partnerId,
      partner: "Pocket Ledger",
      href: "/consent",
      site: SITE,
    });
    expect(deletedPagePath(back)).toBe(
      `/account/deleted?partner=${client.partnerId}&site=${encodeURIComponent(SITE)}`,
    );
  });

  it("another person's flow in this browser is not offered; one's own finished flow leads to the partner's site", async () => {
    const client = await createTestClient();
    const [someone, me] = [await createTestUser(), await createTestUser()];
    const { flowId, setCookie } = await startTestFlow(client);
    const flowCookie = cookieValue(setCookie);
    await db().flow.update({
      where: { id: flowId },
      data: { userId: someone.id, step: "consent" },
    });
    expect(await wayBackForUser({ flowCookie, userId: me.id })).toBeNull();
    await db().flow.update({ where: { id: flowId }, data: { completedAt: new Date() } });
    expect(await wayBackForUser({ flowCookie, userId: me.id })).toBeNull();
    const done = await wayBackForUser({ flowCookie, userId: someone.id });
    expect(done).toMatchObject({ href: SITE, site: SITE });
  });

  it("from the grant mail's partner: only one the person gave access, at the site of their flow", async () => {
    const client = await createTestClient();
    const { user } = await mintApiKey(client);
    const back = await wayBackForUser({
      flowCookie: null,
      userId: user.id,
      from: client.partnerId,
    });
    expect(back).toMatchObject({ partnerId: client.partnerId, href: SITE, site: SITE });

    const stranger = await createTestUser();
    expect(
      await wayBackForUser({ flowCookie: null, userId: stranger.id, from: client.partnerId }),
    ).toBeNull();
    expect(
      await wayBackForUser({ flowCookie: null, userId: user.id, from: "not-an-id" }),
    ).toBeNull();
    expect(deletedPagePath(null)).toBe("/account/deleted");
  });

  it("after deletion: the partner's registered site only, never an address the link brought", async () => {
    const client = await createTestClient();
    await named(client, "Pocket Ledger");
    const given = { flowCookie: null, partnerId: client.partnerId };
    expect(await wayBackAfterDeletion({ ...given, site: SITE })).toEqual({
      partner: "Pocket Ledger",
      href: SITE,
    });
    expect(await wayBackAfterDeletion({ ...given, site: "https://evil.example" })).toBeNull();
    expect(await wayBackAfterDeletion({ ...given, site: "//evil.example" })).toBeNull();
    expect(
      await wayBackAfterDeletion({ flowCookie: null, partnerId: null, site: SITE }),
    ).toBeNull();

    // The browser's flow outlives the deleted person (its user is set to null): its partner is known.
    const { setCookie } = await startTestFlow(client);
    expect(await wayBackAfterDeletion({ flowCookie: cookieValue(setCookie) })).toEqual({
      partner: "Pocket Ledger",
      href: SITE,
    });
  });
});
