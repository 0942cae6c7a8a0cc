import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { loginNonceCookieName } from "../../lib/auth/login-challenges";
import { sessionCookieName } from "../../lib/auth/sessions";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import {
  demoCookieName,
  findBrowserSession,
  handleDemoRevoke,
  handleDemoStart,
  handleDemoSync,
  sessionCsrfToken,
  startCsrfToken,
} from "../../lib/demo/demo";
import { rawSetting, setSetting } from "../../lib/env";
import { handleBankContinue } from "../../lib/flow/banks";
import { csrfToken, type FlowAction } from "../../lib/flow/csrf";
import { handleKeyRegistration } from "../../lib/flow/key-setup";
import { handleLinkConfirm, handleLoginCode, handleLoginRequest } from "../../lib/flow/login";
import { CLIENT_IP_HEADER } from "../../lib/http/client-ip";
import { findLastMessage } from "../../lib/mail";
import { handleSandboxDecision } from "../../lib/upstream/sandbox-decision";
import { sandboxUpstream } from "../../lib/upstream/sandbox";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  signedInCookie,
  uniqueEmail,
  startTestFlow,
} from "../oauth-fixtures";

/**
 * CSRF on the browser's form POSTs (docs/security.md): each state-changing form
 * needs this service's Origin and, where a flow or session exists, the token
 * bound to it and to the action. A refused request changes nothing.
 */

const EVIL = "https://evil.example";
const uniqueIp = () => `198.51.100.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`;

function formPost(
  path: string,
  body: Record<string, string>,
  headers: Record<string, string | null> = {},
): Request {
  const merged: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    Origin: ISSUER,
    [CLIENT_IP_HEADER]: uniqueIp(),
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: merged,
    body: new URLSearchParams(body).toString(),
  });
}

const cookiePair = (setCookie: string) => setCookie.split(";")[0] ?? "";

function setCookiesOf(response: Response): string[] {
  return response.headers.getSetCookie();
}

/** A live flow of a fresh client, optionally signed in by `userId`. */
async function browserFlow(userId: string | null = null) {
  const client = await createTestClient();
  const { flowId, setCookie } = await startTestFlow(client, { state: "s" });
  if (userId) await db().flow.update({ where: { id: flowId }, data: { userId, step: "banks" } });
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  return { flow, cookie: cookiePair(setCookie) };
}

const token = (flow: { id: string; csrfSecret: string }, action: FlowAction) =>
  csrfToken(flow, action);

describe("login forms (docs/protocol.md#sign-in)", () => {
  it("login/request refuses a foreign or missing Origin and a missing, forged or other-action flow token, sending no mail", async () => {
    const { flow, cookie } = await browserFlow();
    const email = uniqueEmail("csrf");
    const attempts: [Record<string, string>, Record<string, string | null>][] = [
      [
        { email, csrf: token(flow, "login") },
        { Origin: EVIL, Cookie: cookie },
      ],
      [
        { email, csrf: token(flow, "login") },
        { Origin: null, Cookie: cookie },
      ],
      [{ email }, { Cookie: cookie }],
      [{ email, csrf: "forged" }, { Cookie: cookie }],
      [{ email, csrf: token(flow, "cancel") }, { Cookie: cookie }],
    ];
    for (const [body, headers] of attempts) {
      const response = await handleLoginRequest(formPost("/login/request", body, headers));
      expect(response.status).toBe(403);
    }
    expect(await findLastMessage(email)).toBeNull();
    const accepted = await handleLoginRequest(
      formPost("/login/request", { email, csrf: token(flow, "login") }, { Cookie: cookie }),
    );
    expect(accepted.status).toBe(303);
    expect(await findLastMessage(email)).not.toBeNull();
  });

  it("login/code refuses a foreign Origin and a bad flow token without spending an attempt", async () => {
    const { flow, cookie } = await browserFlow();
    const email = uniqueEmail("pin");
    const requested = await handleLoginRequest(
      formPost("/login/request", { email, csrf: token(flow, "login") }, { Cookie: cookie }),
    );
    const nonce = setCookiesOf(requested).find((c) => c.startsWith(loginNonceCookieName()));
    const cookies = `${cookie}; ${cookiePair(nonce ?? "")}`;
    const pin = (await findLastMessage(email))?.code ?? "";
    const wrong = pin === "000000" ? "111111" : "000000";
    // More refused tries than the 5 attempts a challenge allows.
    for (let i = 0; i < 3; i += 1) {
      for (const [body, headers] of [
        [
          { email, code: wrong, csrf: token(flow, "login") },
          { Origin: EVIL, Cookie: cookies },
        ],
        [
          { email, code: wrong, csrf: token(flow, "login") },
          { Origin: null, Cookie: cookies },
        ],
        [{ email, code: wrong, csrf: token(flow, "approve") }, { Cookie: cookies }],
      ] as const) {
        const response = await handleLoginCode(formPost("/login/code", body, headers));
        expect(response.status).toBe(403);
      }
    }
    const signedIn = await handleLoginCode(
      formPost(
        "/login/code",
        { email, code: pin, csrf: token(flow, "login") },
        { Cookie: cookies },
      ),
    );
    expect(signedIn.status).toBe(303);
    expect(setCookiesOf(signedIn).some((c) => c.startsWith(`${sessionCookieName()}=`))).toBe(true);
  });

  it("login/link/confirm refuses a foreign or missing Origin and leaves the link usable", async () => {
    const email = uniqueEmail("link");
    const requested = await handleLoginRequest(formPost("/login/request", { email }));
    expect(requested.status).toBe(303);
    const nonce = cookiePair(
      setCookiesOf(requested).find((c) => c.startsWith(loginNonceCookieName())) ?? "",
    );
    const link = new URL((await findLastMessage(email))?.link ?? "http://x/");
    const linkToken = link.searchParams.get("token") ?? "";
    expect(linkToken).not.toBe("");
    for (const origin of [EVIL, null, "http://localhost:3001"]) {
      const response = await handleLinkConfirm(
        formPost("/login/link/confirm", { token: linkToken }, { Origin: origin, Cookie: nonce }),
      );
      expect(response.status).toBe(403);
      expect(setCookiesOf(response)).toEqual([]);
    }
    const confirmed = await handleLinkConfirm(
      formPost("/login/link/confirm", { token: linkToken }, { Cookie: nonce }),
    );
    expect(confirmed.status).toBe(303);
    expect(setCookiesOf(confirmed).some((c) => c.startsWith(`${sessionCookieName()}=`))).toBe(true);
  });
});

describe("identical answers for unknown emails (docs/protocol.md#sign-in)", () => {
  it("login/request answers a known and an unknown address alike: status, Location shape and cookies", async () => {
    const known = await createTestUser(uniqueEmail("known"));
    const unknown = uniqueEmail("unknown");
    const answer = async (email: string) => {
      const response = await handleLoginRequest(
        formPost("/login/request", { email, returnUrl: "/dashboard" }),
      );
      const location = new URL(response.headers.get("location") ?? "", ISSUER);
      location.searchParams.delete("email");
      return {
        status: response.status,
        location: location.href,
        cookies: setCookiesOf(response).map((c) => c.split("=")[0]),
        body: await response.text(),
      };
    };
    const forKnown = await answer(known.email);
    const forUnknown = await answer(unknown);
    expect(forKnown.status).toBe(303);
    expect(forUnknown).toEqual(forKnown);
    // Both got the same mail; the unknown address became no user.
    expect(await findLastMessage(unknown)).not.toBeNull();
    expect(await db().user.findUnique({ where: { email: unknown } })).toBeNull();
  });
});

describe("key setup form (docs/key-model.md)", () => {
  it("setup/key refuses a foreign Origin and a missing, forged or other-action token, registering nothing", async () => {
    const user = await createTestUser();
    const { flow, cookie } = await browserFlow(user.id);
    const cookies = `${cookie}; ${await signedInCookie(user.id)}`;
    const { publicKeyRawB64 } = generateKeyPair();
    const register = (csrf: string | undefined, origin: string | null = ISSUER) =>
      handleKeyRegistration(
        new Request(`${ISSUER}/setup/key`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Cookie: cookies,
            ...(origin ? { Origin: origin } : {}),
          },
          body: JSON.stringify({ publicKey: publicKeyRawB64, csrf }),
        }),
      );
    expect((await register(token(flow, "key-setup"), EVIL)).status).toBe(403);
    expect((await register(token(flow, "key-setup"), null)).status).toBe(403);
    expect((await register(undefined)).status).toBe(403);
    expect((await register("forged")).status).toBe(403);
    expect((await register(token(flow, "bank"))).status).toBe(403);
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).publicKey).toBeNull();
    expect((await register(token(flow, "key-setup"))).status).toBe(200);
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).publicKey).toBe(
      publicKeyRawB64,
    );
  });
});

describe("bank picker forms (/docs/flow)", () => {
  it("banks/continue refuses a foreign Origin and a missing, forged or other-action token, leaving the step alone", async () => {
    const user = await createTestUser();
    const { flow, cookie } = await browserFlow(user.id);
    const cookies = `${cookie}; ${await signedInCookie(user.id)}`;
    const attempts: [Record<string, string>, Record<string, string | null>][] = [
      [{ csrf: token(flow, "bank") }, { Origin: EVIL, Cookie: cookies }],
      [{ csrf: token(flow, "bank") }, { Origin: null, Cookie: cookies }],
      [{}, { Cookie: cookies }],
      [{ csrf: "forged" }, { Cookie: cookies }],
      [{ csrf: token(flow, "approve") }, { Cookie: cookies }],
    ];
    for (const [body, headers] of attempts) {
      expect((await handleBankContinue(formPost("/banks/continue", body, headers))).status).toBe(
        403,
      );
    }
    expect((await db().flow.findUniqueOrThrow({ where: { id: flow.id } })).step).toBe("banks");
    const accepted = await handleBankContinue(
      formPost("/banks/continue", { csrf: token(flow, "bank") }, { Cookie: cookies }),
    );
    expect(accepted.status).toBe(303);
  });

  it("sandbox/authorize/decision refuses a foreign or missing Origin, and a forged authorization gets no code", async () => {
    const sandbox = sandboxUpstream({ baseUrl: ISSUER });
    const { authorizationId } = await sandbox.startAuthorization({
      aspsp: { name: "Sandbox Nordbank DK", country: "DK" },
      psuType: "personal",
      redirectUrl: `${ISSUER}/banks/callback`,
      state: "bank-state",
      validUntil: new Date(Date.now() + 86_400_000),
      language: "en",
    });
    for (const origin of [EVIL, null]) {
      const refused = await handleSandboxDecision(
        formPost(
          "/sandbox/authorize/decision",
          { authorization: authorizationId, decision: "approve" },
          { Origin: origin },
        ),
      );
      expect(refused.status).toBe(403);
      expect(refused.headers.get("location")).toBeNull();
    }
    const forged = await handleSandboxDecision(
      formPost("/sandbox/authorize/decision", {
        authorization: `${authorizationId.slice(0, -2)}xx`,
        decision: "approve",
      }),
    );
    expect(forged.status).toBe(303);
    expect(forged.headers.get("location")).toMatch(/^\/sandbox\/authorize\?authorization=/);
    const approved = await handleSandboxDecision(
      formPost("/sandbox/authorize/decision", {
        authorization: authorizationId,
        decision: "approve",
      }),
    );
    const back = new URL(approved.headers.get("location") ?? "");
    expect(back.origin + back.pathname).toBe(`${ISSUER}/banks/callback`);
    expect(back.searchParams.get("code")).toBeTruthy();
    expect(back.searchParams.get("state")).toBe("bank-state");
  });
});

describe("the demo partner's forms (docs/security.md)", () => {
  const original = {
    ISSUER: rawSetting("ISSUER") ?? "",
    DEMO_ENABLED: rawSetting("DEMO_ENABLED") ?? "",
  };
  afterEach(() => {
    for (const [name, value] of Object.entries(original)) setSetting(name, value);
  });

  it("demo/start, demo/sync and demo/revoke refuse a same-origin POST without the browser's token", async () => {
    setSetting("ISSUER", ISSUER);
    setSetting("DEMO_ENABLED", "true");
    const started = await handleDemoStart(formPost("/demo/start", {}));
    expect(started.status).toBe(303);
    const browserId = decodeURIComponent(
      cookiePair(setCookiesOf(started).find((c) => c.startsWith(demoCookieName())) ?? "").split(
        "=",
      )[1] ?? "",
    );
    expect(browserId).not.toBe("");
    const cookie = `${demoCookieName()}=${encodeURIComponent(browserId)}`;
    const first = await findBrowserSession(browserId);
    expect(first).not.toBeNull();

    // A second start from this browser needs the page's token.
    for (const csrf of ["", "forged"]) {
      const response = await handleDemoStart(formPost("/demo/start", { csrf }, { Cookie: cookie }));
      expect(response.status).toBe(403);
    }
    expect((await findBrowserSession(browserId))?.id).toBe(first?.id);
    expect(
      (
        await handleDemoStart(
          formPost("/demo/start", { csrf: startCsrfToken(browserId) }, { Cookie: cookie }),
        )
      ).status,
    ).toBe(303);

    const session = await findBrowserSession(browserId);
    if (!session) throw new Error("the demo start stores a session");
    const cases = [
      [handleDemoSync, "sync", "revoke"],
      [handleDemoRevoke, "revoke", "sync"],
    ] as const;
    for (const [handle, action, other] of cases) {
      for (const csrf of ["", "forged", sessionCsrfToken(session, other)]) {
        const response = await handle(formPost(`/demo/${action}`, { csrf }, { Cookie: cookie }));
        expect(response.status, `${action} with ${csrf || "no token"}`).toBe(403);
      }
      // The right token from another origin is still refused.
      const foreign = await handle(
        formPost(
          `/demo/${action}`,
          { csrf: sessionCsrfToken(session, action) },
          { Cookie: cookie, Origin: EVIL },
        ),
      );
      expect(foreign.status).toBe(403);
      const accepted = await handle(
        formPost(
          `/demo/${action}`,
          { csrf: sessionCsrfToken(session, action) },
          { Cookie: cookie },
        ),
      );
      expect(accepted.status).toBe(303);
    }
  });
});
