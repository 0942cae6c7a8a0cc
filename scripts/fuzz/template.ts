import type { Rng } from "./prng";
import { ALL_METHODS, type Endpoint, type FuzzRequest, type Method } from "./types";
import {
  BAD_ENCODINGS,
  CONTENT_TYPES,
  garbageCookie,
  hugeString,
  INVALID_UTF8,
  malformedJson,
  megabyteBody,
  multipartBody,
  oddValue,
  ODD_STRINGS,
  randomBytesOf,
  WRONG_TYPES,
} from "./values";

/**
 * A valid request as structured data, and the generic mutations that break
 * exactly one thing about it. Endpoint families add their own (auth, ids).
 */

export type Pair = [name: string, value: string];

export type TemplateBody =
  | { type: "form"; fields: Pair[] }
  | { type: "json"; value: unknown }
  | { type: "bytes"; contentType: string | null; bytes: Buffer };

export interface Template {
  endpoint: Endpoint;
  method: Method | string;
  /** The path, already percent-encoded where needed. */
  path: string;
  /** Query pairs, encoded when serialized; `rawQuery` wins when set. */
  query: Pair[];
  rawQuery?: string;
  /** Where an id sits in the path: `before + id + after`, for the path-id mutation. */
  idSlot?: [before: string, after: string];
  headers: Record<string, string>;
  body?: TemplateBody;
}

export type Mutation = (rng: Rng, template: Template) => Template | null;

const enc = encodeURIComponent;
const encodePairs = (pairs: readonly Pair[]) =>
  pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&");

export function toRequest(
  template: Template,
  kind: string,
  seed: number,
  index: number,
): FuzzRequest {
  const query = template.rawQuery ?? encodePairs(template.query);
  const headers = { ...template.headers };
  let body: Buffer | undefined;
  const b = template.body;
  if (b?.type === "form") {
    body = Buffer.from(encodePairs(b.fields));
    headers["content-type"] ??= "application/x-www-form-urlencoded";
  } else if (b?.type === "json") {
    body = Buffer.from(JSON.stringify(b.value) ?? "");
    headers["content-type"] ??= "application/json";
  } else if (b?.type === "bytes") {
    body = b.bytes;
    if (b.contentType !== null) headers["content-type"] ??= b.contentType;
  }
  return {
    endpoint: template.endpoint,
    kind,
    method: template.method,
    path: query ? `${template.path}?${query}` : template.path,
    headers,
    body,
    seed,
    index,
  };
}

const clone = (t: Template): Template => structuredClone(t);

/** Field names a template carries (query, form or top-level JSON). */
function fieldNames(t: Template): string[] {
  const names = t.query.map(([k]) => k);
  if (t.body?.type === "form") names.push(...t.body.fields.map(([k]) => k));
  if (t.body?.type === "json" && isObject(t.body.value)) names.push(...Object.keys(t.body.value));
  return names;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Replaces (or with `value` undefined, removes) one named field wherever it lives. */
function setField(
  t: Template,
  name: string,
  value: string | undefined | { json: unknown },
): Template {
  const out = clone(t);
  const edit = (pairs: Pair[]) =>
    pairs.flatMap(([k, v]): Pair[] =>
      k !== name
        ? [[k, v]]
        : value === undefined
          ? []
          : [[k, typeof value === "string" ? value : String((value as { json: unknown }).json)]],
    );
  out.query = edit(out.query);
  if (out.body?.type === "form") out.body.fields = edit(out.body.fields);
  if (out.body?.type === "json" && isObject(out.body.value)) {
    const obj = { ...out.body.value };
    if (value === undefined) delete obj[name];
    else obj[name] = typeof value === "string" ? value : value.json;
    out.body.value = obj;
  }
  return out;
}

export const GENERIC_MUTATIONS: Record<string, Mutation> = {
  "wrong-method": (rng, t) => {
    const others = ALL_METHODS.filter((m) => m !== t.method);
    return { ...clone(t), method: rng.pick(others) };
  },
  "missing-field": (rng, t) => {
    const names = fieldNames(t);
    return names.length ? setField(t, rng.pick(names), undefined) : null;
  },
  "wrong-type": (rng, t) => {
    const names = fieldNames(t);
    if (!names.length) return null;
    const name = rng.pick(names);
    if (t.body?.type === "json") return setField(t, name, { json: rng.pick(WRONG_TYPES) });
    // Forms and queries have no types: PHP-style arrays and objects instead.
    const out = setField(t, name, undefined);
    const shape = rng.pick([`${name}[]`, `${name}[0]`, `${name}[a]`, `${name}.x`]);
    out.query = out.query.length || !out.body ? [...out.query, [shape, "1"]] : out.query;
    if (out.body?.type === "form")
      out.body.fields.push([shape, rng.pick(["1", "[]", "{}", "null"])]);
    return out;
  },
  "odd-value": (rng, t) => {
    const names = fieldNames(t);
    return names.length ? setField(t, rng.pick(names), oddValue(rng)) : null;
  },
  "huge-value": (rng, t) => {
    const names = fieldNames(t);
    return names.length ? setField(t, rng.pick(names), hugeString(rng)) : null;
  },
  "bad-encoding": (rng, t) => {
    const out = clone(t);
    const name = fieldNames(t)[0] ?? "x";
    const raw = `${encodePairs(out.query)}${out.query.length ? "&" : ""}${enc(name)}=${rng.pick(BAD_ENCODINGS)}`;
    if (out.body?.type === "form" && rng.chance(0.6)) {
      const bytes = rng.chance(0.3)
        ? Buffer.concat([Buffer.from(`${enc(name)}=`), rng.pick(INVALID_UTF8)])
        : Buffer.from(`${encodePairs(out.body.fields)}&${enc(name)}=${rng.pick(BAD_ENCODINGS)}`);
      out.body = { type: "bytes", contentType: "application/x-www-form-urlencoded", bytes };
      return out;
    }
    if (out.body?.type === "json" && rng.chance(0.5)) {
      out.body = {
        type: "bytes",
        contentType: "application/json",
        bytes: Buffer.concat([
          Buffer.from(`{"${name}":"`),
          rng.pick(INVALID_UTF8),
          Buffer.from('"}'),
        ]),
      };
      return out;
    }
    out.rawQuery = raw;
    return out;
  },
  "duplicate-param": (rng, t) => {
    const out = clone(t);
    if (out.body?.type === "form" && out.body.fields.length && rng.chance(0.6)) {
      const [k, v] = rng.pick(out.body.fields);
      out.body.fields.push([k, rng.chance(0.5) ? v : oddValue(rng)]);
      return out;
    }
    if (out.query.length) {
      const [k, v] = rng.pick(out.query);
      out.query.push([k, rng.chance(0.5) ? v : "other"]);
      return out;
    }
    if (out.body?.type === "json" && isObject(out.body.value)) {
      const keys = Object.keys(out.body.value);
      const key = keys.length ? rng.pick(keys) : "a";
      const text = JSON.stringify(out.body.value).replace(
        /}$/,
        `${keys.length ? "," : ""}"${key}":"dup"}`,
      );
      out.body = { type: "bytes", contentType: "application/json", bytes: Buffer.from(text) };
      return out;
    }
    out.query = [
      ["x", "1"],
      ["x", "2"],
    ];
    return out;
  },
  "content-type": (rng, t) => {
    const out = clone(t);
    const type = rng.pick(CONTENT_TYPES);
    const fields: Pair[] =
      t.body?.type === "form"
        ? t.body.fields
        : t.body?.type === "json" && isObject(t.body.value)
          ? Object.entries(t.body.value).map(([k, v]) => [k, String(v)])
          : [["a", "b"]];
    const bytes = type?.startsWith("multipart")
      ? multipartBody(fields)
      : t.body?.type === "json"
        ? Buffer.from(JSON.stringify(t.body.value))
        : Buffer.from(encodePairs(fields));
    out.body = { type: "bytes", contentType: type, bytes };
    return out;
  },
  "malformed-json": (rng, t) => ({
    ...clone(t),
    body: {
      type: "bytes",
      contentType: rng.pick([
        "application/json",
        "application/x-www-form-urlencoded",
        "text/plain",
      ]),
      bytes: malformedJson(rng),
    },
  }),
  "json-array-body": (rng, t) => ({
    ...clone(t),
    body: {
      type: "json",
      value: rng.pick([
        [],
        [t.body?.type === "json" ? t.body.value : {}],
        [1, 2],
        null,
        42,
        "string",
        true,
      ]),
    },
  }),
  "huge-body": (rng, t) => ({
    ...clone(t),
    body: {
      type: "bytes",
      contentType:
        t.body?.type === "form"
          ? "application/x-www-form-urlencoded"
          : rng.pick(["application/json", "text/plain", "application/octet-stream"]),
      bytes: megabyteBody(
        rng,
        t.body?.type === "form" ? "form" : rng.pick(["json", "text"] as const),
      ),
    },
  }),
  "garbage-body": (rng, t) => ({
    ...clone(t),
    body: {
      type: "bytes",
      contentType: rng.pick(CONTENT_TYPES),
      bytes: randomBytesOf(rng, rng.int(1, 4096)),
    },
  }),
  "long-query": (rng, t) => {
    // Long, but inside Node's 16 KiB header limit, so the service itself answers.
    const target = rng.int(2_000, 12_000);
    let raw = encodePairs(t.query);
    for (let i = 0; raw.length < target; i += 1)
      raw += `&p${i}=${rng.chance(0.5) ? rng.pick(BAD_ENCODINGS) : enc(rng.pick(ODD_STRINGS))}`;
    return { ...clone(t), rawQuery: raw };
  },
  "cookie-garbage": (rng, t) => {
    const out = clone(t);
    out.headers.cookie = garbageCookie(rng, t.headers.cookie);
    return out;
  },
  "big-header": (rng, t) => {
    const out = clone(t);
    const name = rng.pick([
      "x-filler",
      "user-agent",
      "accept-language",
      "referer",
      "accept",
      "x-psu-user-agent",
      "if-none-match",
    ]);
    out.headers[name] = rng.pick(["a", ",", "é", "*"]).repeat(rng.int(4_000, 12_000));
    return out;
  },
  "header-garbage": (rng, t) => {
    const out = clone(t);
    const name = rng.pick([
      "origin",
      "accept-language",
      "x-forwarded-proto",
      "x-forwarded-host",
      "host",
      "x-csrf-token",
      "x-psu-ip-address",
      "accept-encoding",
    ]);
    out.headers[name] = rng.pick([
      "null",
      "*",
      "\u00ff\u00fe",
      "http://evil.example",
      "-1",
      "99999999999",
      "xx-ZZ;q=2,,,;q=abc",
      "",
      "a".repeat(2000),
    ]);
    return out;
  },
};

/** A few generic mutations make no sense without a body or a query; they return null then. */
export function mutate(
  rng: Rng,
  template: Template,
  mutations: Record<string, Mutation>,
): [string, Template] {
  const names = Object.keys(mutations);
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const name = rng.pick(names);
    const mutated = mutations[name]?.(rng, template);
    if (mutated) return [name, mutated];
  }
  return ["odd-value", { ...clone(template), query: [...template.query, ["x", oddValue(rng)]] }];
}
