import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { toS256Challenge } from "../oauth/pkce";
import { ACCESS_DENIED_DESCRIPTION, handleCancelRequest } from "./cancel";
import { csrfToken } from "./csrf";
import { createFlow } from "./flows";
import { createTestClient, ISSUER, newVerifier, REDIRECT_URI } from "../../test/oauth-fixtures";

async function startFlow(options: { state?: string | null; locale?: string | null } = {}) {
  const client = await createTestClient();
  const { flowId, setCookie } = await createFlow({
    clientId: client.clientId,
    redirectUri: client.redirectUri,
    state: options.state === undefined ? "s-42" : options.state,
    codeChallenge: toS256Challenge(newVerifier()),
    scope: "accounts.read",
    locale: options.locale ?? null,
    loginHint: null,
    challenge: null,
    renewConnectionId: null,
  });
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  return { flow, cookie: setCookie.split(";")[0] ?? "" };
}

function cancel(cookie: string, csrf: string, headers: Record<string, string> = {}) {
  return handleCancelRequest(
    new Request(`${ISSUER}/oauth/cancel`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: ISSUER,
        Cookie: cookie,
        ...headers,
      },
      body: new URLSearchParams({ csrf }).toString(),
    }),
  );
}

const fieldsOf = (html: string) =>
  Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(([, n, v]) => [
      n,
      v,
    ]),
  );

describe("cancel (access_denied, /docs/flow)", () => {
  it("form-posts access_denied with iss and state, and ends the flow", async () => {
    const { flow, cookie } = await startFlow();
    const response = await cancel(cookie, csrfToken(flow, "cancel"));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`action="${REDIRECT_URI}"`);
    expect(fieldsOf(html)).toEqual({
      error: "access_denied",
      error_description: ACCESS_DENIED_DESCRIPTION,
      iss: ISSUER,
      state: "s-42",
    });
    const ended = await db().flow.findUniqueOrThrow({ where: { id: flow.id } });
    expect(ended.completedAt).not.toBeNull();
    // A second cancel finds nothing open.
    const again = await cancel(cookie, csrfToken(flow, "cancel"));
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe("/error?reason=expired");
  });

  it("omits state when the authorize request had none", async () => {
    const { flow, cookie } = await startFlow({ state: null });
    const fields = fieldsOf(await (await cancel(cookie, csrfToken(flow, "cancel"))).text());
    expect(Object.keys(fields)).toEqual(["error", "error_description", "iss"]);
  });

  it("speaks the flow's language", async () => {
    const { flow, cookie } = await startFlow({ locale: "sv" });
    const html = await (await cancel(cookie, csrfToken(flow, "cancel"))).text();
    expect(html).toContain('<button type="submit">Fortsätt</button>');
  });

  it("refuses a cross-origin or Origin-less request (CSRF)", async () => {
    const { flow, cookie } = await startFlow();
    expect(
      (await cancel(cookie, csrfToken(flow, "cancel"), { Origin: "https://evil.example" })).status,
    ).toBe(403);
    const noOrigin = await handleCancelRequest(
      new Request(`${ISSUER}/oauth/cancel`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
        body: `csrf=${csrfToken(flow, "cancel")}`,
      }),
    );
    expect(noOrigin.status).toBe(403);
  });

  it("refuses a missing, wrong or other-action CSRF token", async () => {
    const { flow, cookie } = await startFlow();
    expect((await cancel(cookie, "")).status).toBe(403);
    expect((await cancel(cookie, "forged")).status).toBe(403);
    expect((await cancel(cookie, csrfToken(flow, "approve"))).status).toBe(403);
    expect((await db().flow.findUniqueOrThrow({ where: { id: flow.id } })).completedAt).toBeNull();
  });

  it("is bound to the browser's flow cookie", async () => {
    const { flow, cookie } = await startFlow();
    const token = csrfToken(flow, "cancel");
    // Without this browser's live flow nothing is relayed: the error screen
    // offers the way back to the partner instead.
    const relaysNothing = async (response: Response) => {
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/error?reason=expired");
      expect(await response.text()).toBe("");
    };
    await relaysNothing(await cancel("", token));
    await relaysNothing(await cancel(`${cookie.slice(0, -4)}AAAA`, token));
    await db().flow.update({
      where: { id: flow.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    await relaysNothing(await cancel(cookie, token));
    expect((await db().flow.findUniqueOrThrow({ where: { id: flow.id } })).completedAt).toBeNull();
  });
});
