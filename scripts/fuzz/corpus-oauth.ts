import { define, type Generator } from "./generator";
import { apiKeyMutation, clientAuthMutation, flowSessionMutation } from "./mutations";
import type { Mutation, Pair } from "./template";
import { oddValue } from "./values";

/** OAuth endpoints (RFC 8414, RFC 7009; /docs, /docs/flow, /docs/relay, /docs/token): discovery, authorize, token, revoke, userinfo, cancel. */

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/** Authorize parameters with one value swapped for another documented-bad one. */
const authorizeParam: Mutation = (rng, t) => {
  const bad: Record<string, string[]> = {
    response_type: ["token", "code token", "CODE", "", "none"],
    response_mode: ["query", "fragment", "form_post ", "jwt"],
    code_challenge_method: ["plain", "s256", "S512", ""],
    code_challenge: ["short", "=".repeat(43), "!".repeat(43), "a".repeat(44), "a".repeat(128)],
    scope: ["openid", "accounts.read accounts.write", " ", "accounts.read\u0000"],
    renew_connection: ["not-a-uuid", "00000000-0000-0000-0000-000000000000", "../x"],
    ui_locales: ["xx", "da-DK en zz-ZZ", "*", "a".repeat(5000), "\u00ff"],
    challenge: ["pin_code", "magic", ""],
    login_hint: ["not-an-email", "a".repeat(400), "\u0000@x"],
    state: ["a".repeat(3000), "\u0000", ""],
    client_id: ["obc_unknown", "", "\u0000", "a".repeat(200)],
    redirect_uri: [
      "https://app.example.com/callback/",
      "https://evil.example/callback",
      "HTTPS://app.example.com/callback",
      "javascript:alert(1)",
    ],
  };
  const name = rng.pick(Object.keys(bad));
  const out = structuredClone(t);
  out.query = out.query.filter(([k]) => k !== name);
  out.query.push([name, rng.pick(bad[name] ?? [""])]);
  return out;
};

export const OAUTH_GENERATORS: Generator[] = [
  define(
    { name: "/.well-known/oauth-authorization-server", family: "public-json", methods: ["GET"] },
    () => ({
      method: "GET",
      path: "/.well-known/oauth-authorization-server",
      query: [],
      headers: { accept: "application/json" },
    }),
  ),
  define(
    { name: "/oauth/authorize", family: "authorize", methods: ["GET"] },
    (rng, ctx) => ({
      method: "GET",
      path: "/oauth/authorize",
      query: [
        ["response_type", "code"],
        ["client_id", rng.chance(0.15) ? ctx.oauth.suspendedClientId : ctx.oauth.clientId],
        ["redirect_uri", ctx.oauth.redirectUri],
        ["scope", "accounts.read"],
        ["state", `s${rng.hex(8)}`],
        ["code_challenge", CHALLENGE],
        ["code_challenge_method", "S256"],
        ["response_mode", "form_post"],
        ...(rng.chance(0.3)
          ? ([
              ["login_hint", "alice@example.com"],
              ["challenge", "pin_code"],
              ["ui_locales", "da-DK en"],
            ] as Pair[])
          : []),
        ...(rng.chance(0.2) ? ([["renew_connection", ctx.data.connectionId]] as Pair[]) : []),
      ],
      headers: (rng.chance(0.3)
        ? { cookie: rng.pick(ctx.flows).cookie.split("; ")[1] ?? "" }
        : {}) as Record<string, string>,
    }),
    () => ({ "authorize-param": authorizeParam }),
  ),
  define(
    { name: "/oauth/token", family: "oauth-token", methods: ["POST"] },
    (rng, ctx) => {
      const { code, verifier } = rng.pick(ctx.oauth.codes);
      const firstGeneration = rng.chance(0.15);
      return {
        method: "POST",
        path: "/oauth/token",
        query: [],
        headers: (firstGeneration
          ? {}
          : {
              authorization: basic(ctx.oauth.clientId, ctx.oauth.clientSecret),
              accept: "application/json",
            }) as Record<string, string>,
        body: firstGeneration
          ? {
              type: "json",
              value: {
                code,
                codeVerifier: verifier,
                clientId: ctx.oauth.clientId,
                clientSecret: ctx.oauth.clientSecret,
              },
            }
          : {
              type: "form",
              fields: [
                ["grant_type", "authorization_code"],
                ["code", code],
                ["code_verifier", verifier],
                ...(rng.chance(0.5) ? ([["redirect_uri", ctx.oauth.redirectUri]] as Pair[]) : []),
              ],
            },
      };
    },
    (ctx) => ({
      "client-auth": clientAuthMutation(ctx.oauth),
      "grant-param": (rng, t) => {
        if (t.body?.type !== "form") return null;
        const out = structuredClone(t);
        if (out.body?.type !== "form") return null;
        const name = rng.pick(["grant_type", "code", "code_verifier", "redirect_uri"]);
        out.body.fields = out.body.fields.filter(([k]) => k !== name);
        out.body.fields.push([
          name,
          rng.pick([
            "refresh_token",
            "client_credentials",
            "password",
            ctx.oauth.codes[0]?.code ?? "",
            "https://evil.example/cb",
            oddValue(rng),
          ]),
        ]);
        return out;
      },
    }),
  ),
  define(
    { name: "/oauth/revoke", family: "oauth-revoke", methods: ["POST"] },
    (rng, ctx) => {
      const client = ctx.oauth.revokeClient;
      return {
        method: "POST",
        path: "/oauth/revoke",
        query: [],
        headers: { authorization: basic(client.clientId, client.clientSecret) },
        body: {
          type: "form",
          fields: [
            // Another client's key, or an unknown one, must still answer 200 and change nothing.
            [
              "token",
              rng.pick([...client.keys, ctx.data.key, ctx.data.revokedKey, `ebk_${rng.hex(43)}`]),
            ],
            ["token_type_hint", "access_token"],
          ],
        },
      };
    },
    (ctx) => ({
      "client-auth": clientAuthMutation(ctx.oauth.revokeClient),
      "close-pairs": (rng, t) => {
        const out = structuredClone(t);
        if (out.body?.type !== "form") return null;
        const pairs = rng.int(1, 3);
        for (let i = 0; i < pairs; i += 1) {
          if (rng.chance(0.9))
            out.body.fields.push([
              "connection_id",
              rng.pick([ctx.data.connectionId, "x", oddValue(rng)]),
            ]);
          if (rng.chance(0.9))
            out.body.fields.push(["eb_session_id", rng.pick(["s", oddValue(rng)])]);
        }
        return out;
      },
    }),
  ),
  define(
    { name: "/oauth/userinfo", family: "oauth-bearer", methods: ["GET"] },
    (rng, ctx) => ({
      method: "GET",
      path: "/oauth/userinfo",
      query: [],
      headers: rng.chance(0.7)
        ? { authorization: `Bearer ${ctx.data.key}` }
        : { "x-api-key": ctx.data.key },
    }),
    (ctx) => ({ "api-key": apiKeyMutation(ctx), "api-key-2": apiKeyMutation(ctx) }),
  ),
  define(
    { name: "/oauth/cancel", family: "cancel", methods: ["POST"] },
    (rng, ctx) => {
      const flow = rng.pick(ctx.flows);
      return {
        method: "POST",
        path: "/oauth/cancel",
        query: [],
        headers: { cookie: flow.cookie, origin: ctx.origin },
        // A valid cancel would end the flow the other requests use: the token is for another action.
        body: {
          type: "form",
          fields: [["csrf", rng.chance(0.1) ? (flow.csrf.cancel ?? "") : (flow.csrf.login ?? "")]],
        },
      };
    },
    (ctx) => ({ "flow-session": flowSessionMutation(ctx) }),
  ),
];
