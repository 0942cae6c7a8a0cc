import { describe, expect, it } from "vitest";
import { FlowDriver } from "../../test/analytics-flows";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  mintApiKey,
  signedInCookie,
} from "../../test/oauth-fixtures";
import { ownerOf } from "../../test/partner-owners";
import { deletePartnerClient } from "./clients";
import { handlePartnerAnalytics } from "./analytics-api";

const analytics = (cookie: string, query = "", headers: Record<string, string> = {}) =>
  handlePartnerAnalytics(
    new Request(`${ISSUER}/api/partner/analytics${query}`, {
      headers: { Cookie: cookie, ...headers },
    }),
  );

async function body(response: Response) {
  return (await response.json()) as Record<string, unknown>;
}

describe("GET /api/partner/analytics", () => {
  it("answers the owner's numbers as JSON, overall and per client", async () => {
    const owner = await ownerOf();
    const client = owner.clients[0];
    if (!client) throw new Error("no client");
    await (await (await FlowDriver.start(client)).signIn()).cancel();
    await FlowDriver.start(client);

    const response = await analytics(owner.cookie, "?period=24h");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const all = await body(response);
    expect(all).toMatchObject({
      period: "24h",
      unit: "hour",
      client: null,
      totals: {
        started: 2,
        signedIn: 1,
        keySetUp: 0,
        bankConnected: 0,
        approved: 0,
        cancelled: 1,
        failed: 0,
      },
      approvalTime: { approvals: 0, medianSeconds: null },
    });
    expect(all.cancelled).toContainEqual({ step: "key_setup", count: 1 });
    expect(all.series).toHaveLength(24);

    const one = await body(await analytics(owner.cookie, `?period=30d&client=${client.clientId}`));
    expect(one).toMatchObject({ period: "30d", unit: "day", client: client.clientId });
    expect(one.series).toHaveLength(30);
    expect((one.totals as { started: number }).started).toBe(2);
    // The default period is the last 7 days.
    expect(await body(await analytics(owner.cookie))).toMatchObject({ period: "7d" });
  });

  it("refuses a bad period or client id with 400 and says why", async () => {
    const owner = await ownerOf();
    for (const query of ["?period=1y", "?period=", "?period=7d&period=24h", "?client=obc_x"]) {
      const response = await analytics(owner.cookie, query);
      expect(response.status).toBe(400);
      expect(await body(response)).toMatchObject({ error: "invalid_request" });
    }
    const message = await body(await analytics(owner.cookie, "?period=week"));
    expect(message.error_description).toBe("period must be one of 24h, 7d, 30d");
  });

  it("answers 404 for another partner's client, alike for one that does not exist", async () => {
    const owner = await ownerOf();
    const other = await createTestClient();
    await FlowDriver.start(other);
    const theirs = await analytics(owner.cookie, `?client=${other.clientId}`);
    expect(theirs.status).toBe(404);
    const unknown = await analytics(owner.cookie, "?client=obc_nobodyhasthisid");
    expect(unknown.status).toBe(404);
    expect(await body(theirs)).toEqual(await body(unknown));
  });

  it("keeps a deleted client's numbers in the totals and readable on their own", async () => {
    const owner = await ownerOf();
    const client = owner.clients[0];
    if (!client) throw new Error("no client");
    await FlowDriver.start(client);
    await deletePartnerClient(owner.partnerId, client.clientId, {
      actor: { kind: "user", id: owner.user.id },
      clientIp: null,
    });
    expect((await body(await analytics(owner.cookie))).totals).toMatchObject({ started: 1 });
    const alone = await analytics(owner.cookie, `?client=${client.clientId}`);
    expect(alone.status).toBe(200);
  });

  it("refuses without a session, a non-owner and an API key", async () => {
    expect((await analytics("")).status).toBe(401);
    const stranger = await createTestUser();
    expect((await analytics(await signedInCookie(stranger.id))).status).toBe(403);
    const { key } = await mintApiKey(await createTestClient());
    expect((await analytics("", "", { "X-Api-Key": key })).status).toBe(403);
  });

  it("lets an owner of several partners read each, and only those", async () => {
    const owner = await ownerOf(2);
    const [first, second] = owner.clients;
    if (!first || !second) throw new Error("no clients");
    await FlowDriver.start(second);
    expect((await analytics(owner.cookie)).status).toBe(400);
    const chosen = await analytics(owner.cookie, `?partner=${second.partnerId}`);
    expect((await body(chosen)).totals).toMatchObject({ started: 1 });
    const crossed = await analytics(
      owner.cookie,
      `?partner=${first.partnerId}&client=${second.clientId}`,
    );
    expect(crossed.status).toBe(404);
    const stranger = (await createTestClient()).partnerId;
    expect((await analytics(owner.cookie, `?partner=${stranger}`)).status).toBe(403);
  });
});
