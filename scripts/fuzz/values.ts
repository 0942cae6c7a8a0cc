import type { Rng } from "./prng";

/** Malformed values: wrong types, huge sizes, bad encodings. */

/** JSON values of the wrong type where a string is expected. */
export const WRONG_TYPES: readonly unknown[] = [
  0,
  -1,
  1.5,
  1e308,
  Number.MAX_SAFE_INTEGER,
  true,
  false,
  null,
  [],
  ["a", "b"],
  [null],
  {},
  { value: "x" },
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
];

/** Strings that look wrong: injections, traversals, number-likes, control characters. */
export const ODD_STRINGS: readonly string[] = [
  "",
  " ",
  "\t\r\n",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-1",
  "-0",
  "0x10",
  "1e999",
  "1.5",
  "99999999999999999999999999999999",
  "-99999999999999999999999999999999",
  "../../../../etc/passwd",
  "..%2F..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2f",
  "' OR '1'='1",
  '"; DROP TABLE "Client"; --',
  "<script>alert(1)</script>",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "\u0000",
  "a\u0000b",
  "\u202e\u0041\u0042",
  "\ufeff",
  "😀".repeat(20),
  "ḁ̶̢̧̛̦̮̯̰̱",
  "javascript:alert(1)",
  "https://evil.example/callback",
  "//evil.example",
  "obc_",
  "ebk_",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "2026-02-30",
  "9999-99-99",
];

/** Raw (already percent-encoded) values that are not valid percent-encoding or not UTF-8. */
export const BAD_ENCODINGS: readonly string[] = [
  "%zz",
  "%",
  "%%",
  "%2",
  "%G0",
  "%00",
  "a%00b",
  "%ff%fe%fd",
  "%c3%28",
  "%ed%a0%80",
  "%e2%82",
  "%f0%90%80",
  "%c0%af",
  "%u0041",
  "+%2B+",
  "%0d%0aX-Injected:%201",
];

/** Bytes that are not UTF-8, for bodies and (as latin-1) paths and headers. */
export const INVALID_UTF8: readonly Buffer[] = [
  Buffer.from([0xff, 0xfe, 0xfd]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0x00, 0x00, 0x00]),
];

export function hugeString(rng: Rng): string {
  const length = rng.pick([10_000, 65_537, 100_000]);
  return rng.pick(["a", "%", "é", "0", "/"]).repeat(length);
}

export const HUGE_INTEGERS: readonly string[] = [
  "9007199254740993",
  "99999999999999999999999999",
  "1e21",
  "-1",
  "-0",
  "NaN",
  "Infinity",
  "1.5",
  "0.0000001",
  "0",
  "2147483648",
  "4294967296",
  " 1",
  "1 ",
  "+1",
  "0x1f",
  "1_000",
  "١٢",
];

export function oddValue(rng: Rng): string {
  if (rng.chance(0.15)) return hugeString(rng);
  return rng.pick(ODD_STRINGS);
}

/** One of the malformed raw query/form values (encoded or not). */
export function rawOdd(rng: Rng): string {
  return rng.chance(0.5) ? rng.pick(BAD_ENCODINGS) : encodeURIComponent(oddValue(rng));
}

/** Random bytes, mostly printable. */
export function randomBytesOf(rng: Rng, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1)
    bytes[i] = rng.chance(0.8) ? rng.int(0x20, 0x7e) : rng.int(0, 255);
  return bytes;
}

/** Malformed JSON texts. */
export function malformedJson(rng: Rng): Buffer {
  const texts = [
    "{",
    "{'a': 1}",
    '{"a": 1,}',
    '{"a": undefined}',
    "[1, 2",
    "nul",
    "NaN",
    '"unterminated',
    '{"a":1}{"b":2}',
    '{"a":1} trailing',
    "\ufeff{}",
    "[".repeat(20_000),
    `{"a":${"[".repeat(5_000)}${"]".repeat(5_000)}}`,
    '{"__proto__":{"polluted":true}}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    "",
    " ",
  ];
  if (rng.chance(0.2))
    return Buffer.concat([Buffer.from('{"a":"'), rng.pick(INVALID_UTF8), Buffer.from('"}')]);
  return Buffer.from(rng.pick(texts), "utf8");
}

/** A body of about 1 MB. */
export function megabyteBody(rng: Rng, kind: "json" | "form" | "text"): Buffer {
  const filler = "x".repeat(1024 * 1024);
  if (kind === "json")
    return Buffer.from(JSON.stringify({ [rng.pick(["uid", "name", "csrf"])]: filler }));
  if (kind === "form")
    return Buffer.from(`${rng.pick(["token", "email", "code", "csrf"])}=${filler}`);
  return Buffer.from(filler);
}

export const CONTENT_TYPES: readonly (string | null)[] = [
  null,
  "",
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=iso-8859-1",
  "text/plain",
  "text/html",
  "multipart/form-data; boundary=----fuzz",
  "multipart/form-data",
  "application/octet-stream",
  "application/xml",
  "image/png",
  "APPLICATION/JSON",
  "application/json, application/x-www-form-urlencoded",
  ";;;",
  "*/*",
];

/** A multipart body that carries the fields, for endpoints that take forms or JSON. */
export function multipartBody(fields: readonly (readonly [string, string])[]): Buffer {
  const parts = fields.map(
    ([name, value]) =>
      `------fuzz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return Buffer.from(`${parts.join("")}------fuzz--\r\n`);
}

/** Cookie header garbage. */
export function garbageCookie(rng: Rng, valid?: string): string {
  const options = [
    "=",
    ";;;;",
    "bc_session=",
    "bc_session=%zz",
    "bc_session=%",
    `bc_session=${"a".repeat(4000)}`,
    "bc_flow=not.a.flow",
    "bc_flow=00000000-0000-0000-0000-000000000000.secret",
    `bc_flow=${"x".repeat(3000)}.y`,
    "bc_session=a; bc_session=b",
    "bc_session=\u00ff\u00fe",
    "demo_browser=%E0%A4%A",
    "__Host-bc_session=abc",
    "a=b=c=d; ; =; x",
    'bc_session="quoted"',
  ];
  const garbage = rng.pick(options);
  return valid && rng.chance(0.5) ? `${garbage}; ${valid}` : garbage;
}

/** Authorization header values that are malformed in one way or another. */
export function badAuthorization(rng: Rng): string {
  return rng.pick([
    "Bearer",
    "Bearer ",
    "Bearer a b",
    "Bearer ebk_",
    `Bearer ebk_${"a".repeat(300)}`,
    "Bearer \u00ff\u00fe",
    "bearer ebk_unknown",
    "Basic",
    "Basic ",
    "Basic !!!!",
    "Basic =",
    `Basic ${Buffer.from("no-colon").toString("base64")}`,
    `Basic ${Buffer.from("%zz:%").toString("base64")}`,
    `Basic ${Buffer.from(":").toString("base64")}`,
    `Basic ${Buffer.from("\u0000:\u0000").toString("base64")}`,
    `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0xc3, 0x28]).toString("base64")}`,
    `Basic ${Buffer.from(`${"a".repeat(5000)}:b`).toString("base64")}`,
    "Basic dXNlcjpwYXNz extra",
    "Digest username=x",
    "Negotiate abc",
    "ApiKey ebk_x",
    "",
  ]);
}
