import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { setSetting } from "../env";
import { toS256Challenge } from "./pkce";
import { handleAuthorizeRequest } from "../flow/start";
import { PARTNER_KEY_MISSING, PARTNER_SUSPENDED } from "./authorize";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  newVerifier,
  REDIRECT_URI,
  signedInCookie,
  type TestClient,
} from "../../test/oauth-fixtures";

const CHALLENGE = toS256Challenge(newVerifier());

/** The SDK's parameters, in its order; null removes one (/docs/flow). */
function authorizeUrl(
  client: TestClient,
  overrides: Record<string, string | null> = {},
  extra: [string, string][] = [],
) {
  const base: Record<string, string | null> = {
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: "accounts.read",
    state: "s123",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    response_mode: "form_post",
    ...overrides,
  };
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(base)) if (value !== null) params.append(name, value);
  for (const [name, value] of extra) params.append(name, value);
  return `${ISSUER}/oauth/authorize?${params}`;
}

const authorize = (url: string, headers: Record<string, string> = {}) =>
  handleAuthorizeRequest(new Request(url, { headers }));

async function relayOf(response: Response) {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const html = await response.text();
  const action = /<form id="relay" method="post" action="([^"]*)"/.exec(html)?.[1];
  const fields = [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
    ([, name, value]) => [name, value],
  );
  return {
    action,
    fields: Object.fromEntries(fields) as Record<string, string>,
    names: fields.map(([n]) => n),
    html,
  };
}

async function expectBadRequest(response: Response, description: RegExp) {
  expect(response.status).toBe(400);
  expect(response.headers.get("location")).toBeNull();
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error).toBe("invalid_request");
  expect(body.error_description).toMatch(description);
}

describe("authorize: client and redirect URI come first (/docs/flow)", () => {
  it("unknown client_id → 400 JSON invalid_request, nothing sent anywhere", async () => {
    const client = await createTestClient();
    await expectBadRequest(
      await authorize(authorizeUrl({ ...client, clientId: "obc_unknown" })),
      /unknown client_id/,
    );
  });

  it("unknown client_id from a person's browser → a 400 page in their language, nothing sent anywhere", async () => {
    const client = await createTestClient();
    const url = authorizeUrl({ ...client, clientId: "obc_unknown" });
    const html = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    const response = await authorize(url, { Accept: html, "Accept-Language": "de-DE,de;q=0.9" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).not.toContain("script-src");
    const page = await response.text();
    expect(page).toContain('<html lang="de">');
    expect(page).toContain("ist Bank Connect nicht bekannt");
    expect(page).toContain("<code>invalid_request: unknown client_id</code>");
    expect(page).not.toMatch(/<script|<form|<a /);

    // ui_locales picks the language; a redirect URI not registered says so.
    const fi = await authorize(
      authorizeUrl(client, { redirect_uri: "https://evil.example/cb", ui_locales: "fi" }),
      {
        Accept: html,
      },
    );
    expect(fi.status).toBe(400);
    const finnish = await fi.text();
    expect(finnish).toContain('<html lang="fi">');
    expect(finnish).toContain("paluuosoitteen");
    expect(finnish).not.toContain("evil.example");
  });

  it("a program's request (no text/html, or text/html refused) still gets the JSON", async () => {
    const client = await createTestClient();
    const url = authorizeUrl({ ...client, clientId: "obc_unknown" });
    for (const accept of ["application/json", "*/*", "text/html;q=0"]) {
      const response = await authorize(url, { Accept: accept });
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      await expectBadRequest(response, /unknown client_id/);
    }
  });

  it("missing or duplicated client_id → 400 JSON", async () => {
    const client = await createTestClient();
    await expectBadRequest(
      await authorize(authorizeUrl(client, { client_id: null })),
      /client_id is required/,
    );
    await expectBadRequest(
      await authorize(authorizeUrl(client, {}, [["client_id", client.clientId]])),
      /client_id was given more than once/,
    );
  });

  it("redirect_uri not allowlisted → 400 JSON invalid_request, never a redirect", async () => {
    const client = await createTestClient();
    const variants = [
      `${REDIRECT_URI}/`,
      REDIRECT_URI.toUpperCase(),
      "https://APP.example.com/callback",
      `${REDIRECT_URI}?extra=1`,
      `${REDIRECT_URI}#fragment`,
      "https://user:pass@app.example.com/callback",
      "https://app.example.com/other/../callback",
      "https://app.example.com/%63allback",
      "https://evil.example.com/callback",
      "https://app.example.com.evil.example/callback",
      "http://app.example.com/callback",
      "https://app.example.com:443/callback",
      "",
    ];
    for (const redirectUri of variants) {
      const response = await authorize(authorizeUrl(client, { redirect_uri: redirectUri }));
      await expectBadRequest(response, /redirect_uri/);
    }
  });

  it("a duplicated redirect_uri → 400 JSON even when both copies are registered", async () => {
    const client = await createTestClient();
    await expectBadRequest(
      await authorize(authorizeUrl(client, {}, [["redirect_uri", REDIRECT_URI]])),
      /redirect_uri was given more than once/,
    );
  });
});

describe("authorize: every other error is form-posted (/docs/errors)", () => {
  const rows: [string, Record<string, string | null>, string][] = [
    ["response_type other than code", { response_type: "token" }, "unsupported_response_type"],
    ["response_type missing for an obc_ client", { response_type: null }, "invalid_request"],
    ["response_mode other than form_post", { response_mode: "query" }, "invalid_request"],
    ["code_challenge missing", { code_challenge: null }, "invalid_request"],
    ["code_challenge malformed", { code_challenge: "c456" }, "invalid_request"],
    [
      "code_challenge_method other than S256",
      { code_challenge_method: "plain" },
      "invalid_request",
    ],
    ["unsupported scope", { scope: "accounts.write" }, "invalid_scope"],
    ["a second scope besides accounts.read", { scope: "accounts.read openid" }, "invalid_scope"],
  ];
  for (const [condition, overrides, error] of rows) {
    it(`${condition} → ${error}`, async () => {
      const client = await createTestClient();
      const relay = await relayOf(await authorize(authorizeUrl(client, overrides)));
      expect(relay.action).toBe(REDIRECT_URI);
      expect(relay.names).toEqual(["error", "error_description", "iss", "state"]);
      expect(relay.fields).toMatchObject({ error, iss: ISSUER, state: "s123" });
      expect(relay.fields.error_description).toMatch(/^[\x20-\x7e]+$/);
    });
  }

  it("a duplicated parameter → invalid_request", async () => {
    const client = await createTestClient();
    const relay = await relayOf(
      await authorize(authorizeUrl(client, {}, [["scope", "accounts.read"]])),
    );
    expect(relay.fields).toMatchObject({ error: "invalid_request", state: "s123" });
    expect(relay.fields.error_description).toContain("scope");
  });

  it("leaves state out of the error relay when the request had none", async () => {
    const client = await createTestClient();
    const relay = await relayOf(await authorize(authorizeUrl(client, { state: null, scope: "x" })));
    expect(relay.names).toEqual(["error", "error_description", "iss"]);
  });

  it("echoes a hostile state escaped", async () => {
    const client = await createTestClient();
    const hostile = `"><script>alert(1)</script>`;
    const relay = await relayOf(
      await authorize(authorizeUrl(client, { state: hostile, scope: "x" })),
    );
    expect(relay.html).not.toContain("<script>alert(1)</script>");
    expect(relay.fields.state).toBe("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("speaks the ui_locales language on the no-JavaScript button", async () => {
    const client = await createTestClient();
    const relay = await relayOf(
      await authorize(authorizeUrl(client, { scope: "x", ui_locales: "da-DK en" })),
    );
    expect(relay.html).toContain('<html lang="da">');
    expect(relay.html).toContain('<button type="submit">Fortsæt</button>');
  });

  it("a suspended partner → temporarily_unavailable with the pinned description", async () => {
    const client = await createTestClient();
    await db().partner.update({
      where: { id: client.partnerId ?? "" },
      data: { status: "suspended" },
    });
    const relay = await relayOf(await authorize(authorizeUrl(client)));
    expect(relay.fields).toMatchObject({
      error: "temporarily_unavailable",
      error_description: PARTNER_SUSPENDED,
    });
  });

  it("a partner without a required recipient key → temporarily_unavailable with the pinned description", async () => {
    const client = await createTestClient();
    setSetting("RECIPIENT_KEY_REQUIRED", "true");
    try {
      const relay = await relayOf(await authorize(authorizeUrl(client)));
      expect(relay.fields).toMatchObject({
        error: "temporarily_unavailable",
        error_description: PARTNER_KEY_MISSING,
      });
    } finally {
      setSetting("RECIPIENT_KEY_REQUIRED", "false");
    }
  });
});

describe("authorize: a valid request (/docs/flow)", () => {
  it("creates a flow, sets the 1-hour flow cookie and sends a signed-out user to login", async () => {
    const client = await createTestClient();
    const url = authorizeUrl(client, {}, [
      ["login_hint", "alice@example.com"],
      ["challenge", "pin_code"],
      ["ui_locales", "xx da-DK en"],
      ["unknown_param", "ignored"],
    ]);
    const response = await authorize(url);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location") ?? "", ISSUER);
    expect(location.pathname).toBe("/login");
    expect(location.searchParams.get("returnUrl")).toBe(url);
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^bc_flow=[0-9a-f-]{36}\./);
    expect(cookie).toContain("Max-Age=3600");
    expect(cookie).toContain("HttpOnly");
    const flowId = /^bc_flow=([0-9a-f-]{36})/.exec(cookie)?.[1] ?? "";
    const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
    expect(flow).toMatchObject({
      clientId: client.clientId,
      redirectUri: REDIRECT_URI,
      state: "s123",
      codeChallenge: CHALLENGE,
      scope: "accounts.read",
      loginHint: "alice@example.com",
      challenge: "pin_code",
      locale: "da",
      step: "login",
    });
    expect(flow.expiresAt.getTime() - flow.createdAt.getTime()).toBeGreaterThanOrEqual(3599_000);
  });

  it("defaults response_mode, code_challenge_method and scope", async () => {
    const client = await createTestClient();
    const response = await authorize(
      authorizeUrl(client, { response_mode: null, code_challenge_method: null, scope: null }),
    );
    expect(response.status).toBe(303);
  });

  it("lets first-generation client ids omit response_type", async () => {
    const client = await createTestClient({ legacyId: `legacy-${Date.now()}` });
    const response = await authorize(authorizeUrl(client, { response_type: null }));
    expect(response.status).toBe(303);
  });

  it("ignores a challenge other than pin_code", async () => {
    const client = await createTestClient();
    const response = await authorize(authorizeUrl(client, {}, [["challenge", "magic"]]));
    const flowId =
      /bc_flow=([0-9a-f-]{36})/.exec(response.headers.get("set-cookie") ?? "")?.[1] ?? "";
    expect((await db().flow.findUniqueOrThrow({ where: { id: flowId } })).challenge).toBeNull();
  });

  it("keeps renew_connection on the flow and refuses a malformed one", async () => {
    const client = await createTestClient();
    const id = "22222222-2222-4222-8222-222222222222";
    const ok = await authorize(authorizeUrl(client, {}, [["renew_connection", id]]));
    const flowId = /bc_flow=([0-9a-f-]{36})/.exec(ok.headers.get("set-cookie") ?? "")?.[1] ?? "";
    expect((await db().flow.findUniqueOrThrow({ where: { id: flowId } })).renewConnectionId).toBe(
      id,
    );
    const bad = await relayOf(
      await authorize(authorizeUrl(client, {}, [["renew_connection", "x"]])),
    );
    expect(bad.fields.error).toBe("invalid_request");
  });

  it("sends a signed-in user without a key to key setup (user-key mode)", async () => {
    const client = await createTestClient();
    const user = await createTestUser();
    const response = await authorize(authorizeUrl(client), {
      cookie: await signedInCookie(user.id),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/setup");
  });

  it("sends a signed-in user straight to consent when the partner holds the key", async () => {
    const client = await createTestClient();
    await db().partner.update({
      where: { id: client.partnerId ?? "" },
      data: {
        recipientPublicKey:
          "BIvmNG8kEFweiUDsbixraCRO+LPtt2g/SAoxjXJ8qrsaMNKm2MeiNB/k2NGjsfYGNabCkSPC/07v1Ddzf9r7fmU=",
      },
    });
    const user = await createTestUser();
    const response = await authorize(authorizeUrl(client), {
      cookie: await signedInCookie(user.id),
    });
    expect(response.headers.get("location")).toBe("/consent");
  });
});
