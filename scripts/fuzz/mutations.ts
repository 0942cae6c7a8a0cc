import type { Rng } from "./prng";
import type { Mutation, Template } from "./template";
import type { FuzzContext } from "./types";
import { badAuthorization, BAD_ENCODINGS, hugeString } from "./values";

/** Mutations that need the fixtures: credentials, sessions, other tenants' ids. */

export const withHeaders = (t: Template, edit: (h: Record<string, string>) => void): Template => {
  const out = structuredClone(t);
  edit(out.headers);
  return out;
};

const dropAuth = (h: Record<string, string>) => {
  delete h.authorization;
  delete h["x-api-key"];
};

/** Bearer or X-Api-Key, each missing, unknown, revoked, expired, malformed or in conflict (/docs/data). */
export function apiKeyMutation(ctx: FuzzContext): Mutation {
  const { key, revokedKey, expiredKey } = ctx.data;
  const variants: ((rng: Rng, h: Record<string, string>) => void)[] = [
    () => undefined,
    (_r, h) => (h["x-api-key"] = revokedKey),
    (_r, h) => (h["x-api-key"] = expiredKey),
    (_r, h) => (h.authorization = `Bearer ${revokedKey}`),
    (r, h) => (h["x-api-key"] = `ebk_${r.hex(43)}`),
    (r, h) => (h.authorization = `Bearer ebk_${r.hex(43)}`),
    (r, h) =>
      (h["x-api-key"] = r.pick([
        "",
        " ",
        "ebk_",
        "obc_x",
        key.toUpperCase(),
        `${key}x`,
        key.slice(0, -1),
        "\u00ff\u00fe",
        "a".repeat(8000),
      ])),
    (r, h) => (h.authorization = badAuthorization(r)),
    (_r, h) => {
      h.authorization = `Bearer ${key}`;
      h["x-api-key"] = revokedKey;
    },
    (_r, h) => {
      h.authorization = `Bearer ${key}`;
      h["x-api-key"] = key;
    },
    (_r, h) => (h.authorization = `Basic ${Buffer.from(`${key}:`).toString("base64")}`),
    (_r, h) => (h.authorization = `bearer    ${key}   `),
  ];
  return (rng, t) =>
    withHeaders(t, (h) => {
      dropAuth(h);
      rng.pick(variants)(rng, h);
    });
}

/** Basic credentials broken in each documented way, or client_secret_post misuse (/docs/token). */
export function clientAuthMutation(client: { clientId: string; clientSecret: string }): Mutation {
  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
  return (rng, t) => {
    const out = structuredClone(t);
    const choice = rng.int(0, 6);
    if (choice === 0) delete out.headers.authorization;
    else if (choice === 1) out.headers.authorization = badAuthorization(rng);
    else if (choice === 2)
      out.headers.authorization = basic(client.clientId, `${client.clientSecret}x`);
    else if (choice === 3)
      out.headers.authorization = basic(`obc_${rng.hex(20)}`, client.clientSecret);
    else if (choice === 4)
      out.headers.authorization = basic(
        rng.pick(["", "\u0000", "a".repeat(200), "obc_é"]),
        rng.pick(["", "x", "\u0000"]),
      );
    else if (out.body?.type === "form") {
      // client_secret_post, alone or together with Basic.
      if (choice === 5) delete out.headers.authorization;
      out.body.fields.push([
        "client_id",
        rng.chance(0.7) ? client.clientId : rng.pick(["\u0000", "x".repeat(300), "%zz"]),
      ]);
      if (rng.chance(0.7))
        out.body.fields.push(["client_secret", rng.chance(0.5) ? client.clientSecret : "wrong"]);
    } else {
      out.headers.authorization = `Basic ${Buffer.from(`${client.clientId}${client.clientSecret}`).toString("base64")}`;
    }
    return out;
  };
}

/** Path ids: traversals, non-UUIDs, other tenants' ids, bad percent-encoding. */
export function pathIdMutation(otherIds: () => string[]): Mutation {
  return (rng, t) => {
    if (!t.idSlot) return null;
    const [before, after] = t.idSlot;
    const id = rng.pick([
      ...otherIds(),
      "..",
      "../..",
      "..%2F..%2Fhealthz",
      "%2e%2e",
      "not-a-uuid",
      "00000000-0000-0000-0000-000000000000",
      "ZZZZZZZZ-0000-0000-0000-000000000000",
      "1",
      "-1",
      "null",
      "%00",
      "a%00b",
      "%20",
      "%E2%80%AE",
      "\u00ff\u00fe",
      encodeURIComponent(hugeString(rng).slice(0, 6000)),
      ...BAD_ENCODINGS,
    ]);
    return { ...structuredClone(t), path: `${before}${id}${after}` };
  };
}

/** The owner session with one piece missing or wrong (docs/protocol.md#partner-endpoints). */
export function ownerMutation(ctx: FuzzContext): Mutation {
  const o = ctx.owner;
  return (rng, t) =>
    withHeaders(t, (h) => {
      const choice = rng.int(0, 8);
      if (choice === 0) delete h.cookie;
      else if (choice === 1) delete h["x-csrf-token"];
      else if (choice === 2)
        h["x-csrf-token"] = rng.pick([o.multiCsrf, "", "x", o.csrf.toUpperCase()]);
      else if (choice === 3) h.origin = rng.pick(["http://evil.example", "null", ""]);
      else if (choice === 4) delete h.origin;
      else if (choice === 5) h["x-api-key"] = ctx.data.key;
      else if (choice === 6) {
        h.cookie = o.multiCookie;
        h["x-csrf-token"] = o.multiCsrf;
      } else if (choice === 7) h.authorization = `Bearer ${ctx.data.revokedKey}`;
      else h.cookie = `bc_session=${rng.hex(43)}`;
    });
}

/** `?partner=` for the owner API: another partner's id, a non-UUID, a huge value. */
export function partnerParamMutation(ctx: FuzzContext): Mutation {
  return (rng, t) => ({
    ...structuredClone(t),
    query: [
      ...t.query,
      [
        "partner",
        rng.pick([
          ctx.owner.otherPartnerId,
          ctx.owner.partnerId,
          "not-a-uuid",
          "%zz",
          "\u0000",
          hugeString(rng).slice(0, 3000),
        ]),
      ],
    ],
  });
}

/** The hosted screens' browser binding: flow cookie, session, CSRF token, Origin. */
export function flowSessionMutation(ctx: FuzzContext): Mutation {
  return (rng, t) =>
    withHeaders(t, (h) => {
      const choice = rng.int(0, 5);
      const other = rng.pick(ctx.flows);
      if (choice === 0) delete h.cookie;
      else if (choice === 1) h.cookie = (h.cookie ?? "").split("; ")[rng.int(0, 1)] ?? "";
      else if (choice === 2)
        h.cookie = `${other.cookie.split("; ")[0] ?? ""}; ${(h.cookie ?? "").split("; ")[1] ?? ""}`;
      else if (choice === 3)
        h.origin = rng.pick([
          "http://evil.example",
          "null",
          ctx.origin.replace("localhost", "127.0.0.1"),
        ]);
      else if (choice === 4) delete h.origin;
      else
        h.cookie = `bc_flow=${rng.pick(["%zz", "x.y", "00000000-0000-0000-0000-000000000000.", "\u00ff"])}; bc_session=${rng.hex(20)}`;
    });
}
