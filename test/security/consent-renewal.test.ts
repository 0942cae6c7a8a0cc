import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as renewRoute from "../../app/(flow)/account/connections/[id]/renew/route";
import { db } from "../../lib/db/client";
import { connectedPartnerUser } from "../bank-data";
import { createTestUser, signedInCookie } from "../oauth-fixtures";
import { startRouteServer, type RouteServer } from "../route-server";

/**
 * Renewing a bank consent from My access or the reminder mail
 * (docs/events.md#reminders): GET /account/connections/<id>/renew starts the
 * bank's consent only for the signed-in person's own connection. Every
 * request goes over HTTP to the route as the service serves it.
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({ "/account/connections/[id]/renew": renewRoute });
});
afterAll(() => server.close());

const renew = (connectionId: string, cookie?: string) =>
  fetch(`${server.origin}/account/connections/${connectionId}/renew`, {
    redirect: "manual",
    headers: {
      "X-Forwarded-For": `198.51.100.${randomInt(1, 255)}`,
      ...(cookie ? { Cookie: cookie } : {}),
    },
  });

const renewalsOf = (connectionId: string) =>
  db().bankAuthorization.count({ where: { renewConnectionId: connectionId } });

async function personWithBank() {
  const connected = await connectedPartnerUser();
  const tenant = await db().tenant.findUniqueOrThrow({ where: { id: connected.tenantId } });
  return {
    connectionId: connected.stored.connectionId,
    cookie: await signedInCookie(tenant.userId),
  };
}

describe("renewing a bank consent from My access", () => {
  it("starts the bank's consent for the signed-in person's own connection only", async () => {
    const mine = await personWithBank();
    const answer = await renew(mine.connectionId, mine.cookie);
    expect(answer.status).toBe(303);
    expect(new URL(answer.headers.get("location") ?? "").pathname).toBe("/sandbox/authorize");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(await renewalsOf(mine.connectionId)).toBe(1);

    // Someone else, signed in, with the same link: their own page, nothing started.
    const stranger = await createTestUser();
    const theirs = await renew(mine.connectionId, await signedInCookie(stranger.id));
    expect(theirs.status).toBe(303);
    expect(theirs.headers.get("location")).toBe("/account");
    expect(await renewalsOf(mine.connectionId)).toBe(1);
  });

  it("signed out, asks for sign-in first and comes back to the same link; a malformed id goes nowhere", async () => {
    const mine = await personWithBank();
    const signedOut = await renew(mine.connectionId);
    expect(signedOut.status).toBe(303);
    const login = new URL(signedOut.headers.get("location") ?? "", server.origin);
    expect(login.pathname).toBe("/login");
    expect(login.searchParams.get("returnUrl")).toBe(
      `/account/connections/${mine.connectionId}/renew`,
    );
    expect(await renewalsOf(mine.connectionId)).toBe(0);

    const malformed = await renew("not-a-connection", mine.cookie);
    expect(malformed.headers.get("location")).toBe("/account");
  });
});
