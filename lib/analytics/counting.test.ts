import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { approveFlow } from "../flow/approve";
import { toS256Challenge } from "../oauth/pkce";
import { handleAuthorizeRequest } from "../flow/start";
import { createClient } from "../partners/clients";
import { FlowDriver } from "../../test/analytics-flows";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  newVerifier,
  signedInCookie,
  type TestClient,
} from "../../test/oauth-fixtures";
import { readFlowAnalytics } from "./query";

/**
 * Flow analytics counted from real flows (docs/analytics.md): each flow is
 * driven through the real lib/flow handlers to the step it ends on, and the
 * partner's numbers are read back as the dashboard and the API read them.
 */

const SECOND = 1000;

/** A partner with two clients. */
async function partnerWithTwoClients(): Promise<[TestClient, TestClient]> {
  const first = await createTestClient();
  const { client, clientSecret } = await createClient({
    partnerId: first.partnerId,
    redirectUris: [first.redirectUri],
  });
  return [
    first,
    {
      clientId: client.id,
      clientSecret,
      redirectUri: first.redirectUri,
      partnerId: first.partnerId,
    },
  ];
}

const read = (partnerId: string, clientId: string | null = null, now = new Date()) =>
  readFlowAnalytics(partnerId, { period: "24h", clientId }, now);

describe("counting flows by the step they reach", () => {
  it("counts every step, cancellation by step, failure by reason, and the median time to approve", async () => {
    const [a, b] = await partnerWithTwoClients();
    const t0 = new Date();
    const at = (seconds: number) => new Date(t0.getTime() + seconds * SECOND);

    // Client a: one flow ending at each step.
    await FlowDriver.start(a, t0);
    await (await FlowDriver.start(a, t0)).signIn();
    await (await (await FlowDriver.start(a, t0)).signIn()).setUpKey();
    const connected = await FlowDriver.start(a, t0);
    await (await (await connected.signIn()).setUpKey()).connectBank();
    // Approved after 50 s, 100 s and 200 s: buckets (45, 60], (90, 120], (180, 240].
    for (const seconds of [50, 100, 200]) {
      const flow = await FlowDriver.start(a, t0);
      await (await (await (await flow.signIn()).setUpKey()).connectBank()).approve(at(seconds));
    }
    // Client b: cancelled at sign-in, at key setup and at the bank; a refusal at the bank.
    await (await FlowDriver.start(b, t0)).cancel();
    await (await (await FlowDriver.start(b, t0)).signIn()).cancel();
    await (await (await (await FlowDriver.start(b, t0)).signIn()).setUpKey()).cancel();
    await (await (await (await FlowDriver.start(b, t0)).signIn()).setUpKey()).denyAtBank();

    const onlyA = await read(a.partnerId ?? "", a.clientId, t0);
    expect(onlyA.totals).toEqual({
      started: 7,
      signed_in: 6,
      key_set_up: 5,
      bank_connected: 4,
      approved: 3,
      cancelled: 0,
      failed: 0,
    });
    // The median of 50, 100 and 200 s is 100 s; read from the buckets it is
    // interpolated inside (90, 120]: 90 + 30 × (1.5 − 1) / 1 = 105.
    expect(onlyA.approvalTime).toMatchObject({ approvals: 3, medianSeconds: 105 });

    const onlyB = await read(a.partnerId ?? "", b.clientId, t0);
    expect(onlyB.totals).toEqual({
      started: 4,
      signed_in: 3,
      key_set_up: 2,
      bank_connected: 0,
      approved: 0,
      cancelled: 3,
      failed: 1,
    });
    expect(onlyB.cancelled).toEqual({ login: 1, key_setup: 1, banks: 1, consent: 0 });
    expect(onlyB.failed).toEqual({
      bank_unavailable: 0,
      bank_denied: 1,
      bank_failed: 0,
      bank_busy: 0,
    });
    expect(onlyB.approvalTime).toMatchObject({ approvals: 0, medianSeconds: null });

    const overall = await read(a.partnerId ?? "", null, t0);
    expect(overall.totals).toEqual({
      started: 11,
      signed_in: 9,
      key_set_up: 7,
      bank_connected: 4,
      approved: 3,
      cancelled: 3,
      failed: 1,
    });
    expect(overall.approvalTime.medianSeconds).toBe(105);
    // The series holds the same flows, all in the hour they started.
    const thisHour = overall.series.at(-1)?.counts;
    expect(thisHour).toEqual(overall.totals);
    expect(overall.series.slice(0, -1).every((entry) => entry.counts.started === 0)).toBe(true);
  });

  it("counts a reload or a second tab once", async () => {
    const [client] = await partnerWithTwoClients();
    const flow = await FlowDriver.start(client);
    await flow.signIn();
    await flow.signInAgain();
    await flow.setUpKey();
    await flow.setUpKeyAgain();
    await flow.connectBank();
    await flow.signInAgain();
    await flow.approve();
    // A second tab approving the same flow finds it completed.
    const userId = (await db().flow.findUniqueOrThrow({ where: { id: flow.flowId } })).userId ?? "";
    await expect(approveFlow(flow.flowId, userId)).rejects.toThrow();
    // Cancelling from a stale tab after the approval finds nothing open.
    expect((await flow.cancel()).status).toBe(303);

    expect((await read(client.partnerId ?? "")).totals).toEqual({
      started: 1,
      signed_in: 1,
      key_set_up: 1,
      bank_connected: 1,
      approved: 1,
      cancelled: 0,
      failed: 0,
    });
  });

  it("counts a browser coming back through authorize (after sign-in, a reload, a second tab) as one start", async () => {
    const [client, other] = await partnerWithTwoClients();
    const url = (target: TestClient) =>
      `${ISSUER}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: target.clientId,
        redirect_uri: target.redirectUri,
        scope: "accounts.read",
        state: "s",
        code_challenge: toS256Challenge(newVerifier()),
        code_challenge_method: "S256",
        response_mode: "form_post",
      })}`;
    let flowCookie = "";
    const authorize = async (target: TestClient, session = "") => {
      const cookie = [flowCookie, session].filter(Boolean).join("; ");
      const response = await handleAuthorizeRequest(
        new Request(url(target), { headers: cookie ? { Cookie: cookie } : {} }),
      );
      flowCookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      return flowCookie.slice(flowCookie.indexOf("=") + 1, flowCookie.indexOf("."));
    };
    const session = await signedInCookie((await createTestUser()).id);

    const first = await authorize(client);
    // Signed in, the browser comes back to the same authorization; then a reload.
    const second = await authorize(client, session);
    await authorize(client, session);
    expect(second).not.toBe(first);
    const counted = (await read(client.partnerId ?? "", client.clientId)).totals;
    expect(counted).toMatchObject({ started: 1, signed_in: 1 });

    // Once approved, the partner's link again is a new attempt; another client's is one too.
    const user = await db().flow.findUniqueOrThrow({ where: { id: second } });
    const last = await authorize(client, session);
    await approveFlow(last, user.userId ?? "");
    await authorize(client, session);
    await authorize(other, session);
    expect((await read(client.partnerId ?? "", client.clientId)).totals).toMatchObject({
      started: 2,
      signed_in: 2,
      approved: 1,
    });
    expect((await read(client.partnerId ?? "", other.clientId)).totals.started).toBe(1);
  });

  it("counts a refusal at the bank once per flow, though the person tries again", async () => {
    const [client] = await partnerWithTwoClients();
    const flow = await (await (await FlowDriver.start(client)).signIn()).setUpKey();
    await flow.denyAtBank();
    await flow.denyAtBank();
    await flow.connectBank();
    const { totals, failed } = await read(client.partnerId ?? "");
    expect(failed.bank_denied).toBe(1);
    expect(totals).toMatchObject({ failed: 1, bank_connected: 1 });
  });

  it("keeps no other partner's flows in a partner's numbers", async () => {
    const [mine] = await partnerWithTwoClients();
    const [theirs] = await partnerWithTwoClients();
    await (await FlowDriver.start(theirs)).signIn();
    expect((await read(mine.partnerId ?? "")).totals.started).toBe(0);
    expect((await read(theirs.partnerId ?? "")).totals.started).toBe(1);
  });
});

describe("what the counters store", () => {
  it("has no column for a person, a flow, an address or an exact time", async () => {
    const columns = await db().$queryRaw<{ table_name: string; column_name: string }[]>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema()
        AND table_name IN ('FlowStepCount', 'FlowApprovalTime')
      ORDER BY table_name, ordinal_position`;
    const of = (table: string) =>
      columns.filter((row) => row.table_name === table).map((row) => row.column_name);
    expect(of("FlowStepCount")).toEqual([
      "partnerId",
      "clientId",
      "hour",
      "event",
      "detail",
      "count",
    ]);
    expect(of("FlowApprovalTime")).toEqual(["partnerId", "clientId", "hour", "bucket", "count"]);
  });

  it("stores hours, never finer times, and only the names of events, steps and reasons", async () => {
    const [client] = await partnerWithTwoClients();
    const flow = await FlowDriver.start(client);
    await (await flow.signIn()).cancel();
    const rows = await db().flowStepCount.findMany({
      where: { partnerId: client.partnerId ?? "" },
    });
    expect(rows.map((row) => [row.event, row.detail, row.count]).sort()).toEqual([
      ["cancelled", "key_setup", 1],
      ["signed_in", "", 1],
      ["started", "", 1],
    ]);
    for (const row of rows) expect(row.hour.getTime() % (60 * 60 * SECOND)).toBe(0);
  });
});
