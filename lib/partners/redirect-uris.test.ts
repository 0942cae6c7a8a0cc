import { describe, expect, it } from "vitest";
import {
  isLoopbackHost,
  parseRedirectUris,
  redirectUrisSchema,
  type RedirectUriRule,
} from "./redirect-uris";

/** The rules broken by a list, in the order reported. */
function rulesOf(list: string[]): RedirectUriRule[] {
  const result = parseRedirectUris(list);
  return result.success ? [] : result.problems.map((problem) => problem.rule);
}

function messagesOf(list: string[]): string[] {
  const result = parseRedirectUris(list);
  return result.success ? [] : result.problems.map((problem) => problem.message);
}

describe("parseRedirectUris: accepted", () => {
  it.each([
    "https://app.example.com/callback",
    "https://app.example.com/cb?tenant=a&x=1",
    "https://app.example.com:8443/oauth/callback",
    "https://xn--bcher-kva.example/cb",
    "http://localhost:3000/callback",
    "http://localhost/callback",
    "http://127.0.0.1:8080/cb",
    "http://127.10.20.30/cb",
    "http://[::1]:4000/cb",
  ])("accepts %s", (uri) => {
    expect(parseRedirectUris([uri])).toEqual({ success: true, data: [uri] });
  });

  it("keeps URIs exactly as given (no normalization)", () => {
    const list = ["HTTPS://App.Example.COM/Callback", "https://app.example.com:443/cb/../x"];
    expect(parseRedirectUris(list)).toEqual({ success: true, data: list });
  });

  it("accepts exactly 10 URIs", () => {
    const list = Array.from({ length: 10 }, (_, i) => `https://app.example.com/cb/${i}`);
    expect(parseRedirectUris(list).success).toBe(true);
  });

  it("accepts a URI of exactly 2048 characters", () => {
    const base = "https://app.example.com/";
    const uri = base + "a".repeat(2048 - base.length);
    expect(uri).toHaveLength(2048);
    expect(parseRedirectUris([uri]).success).toBe(true);
  });
});

describe("parseRedirectUris: list rules", () => {
  it("requires at least one URI", () => {
    expect(rulesOf([])).toEqual(["required"]);
  });

  it("refuses an 11th URI, naming it", () => {
    const list = Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb/${i}`);
    expect(rulesOf(list)).toEqual(["too_many"]);
    expect(messagesOf(list)[0]).toContain('"https://app.example.com/cb/10"');
    expect(messagesOf(list)[0]).toContain("at most 10 redirect URIs");
  });

  it("refuses an exact duplicate, naming it", () => {
    const list = ["https://a.example/cb", "https://b.example/cb", "https://a.example/cb"];
    expect(rulesOf(list)).toEqual(["duplicate"]);
    expect(messagesOf(list)).toEqual(['"https://a.example/cb": is listed more than once']);
  });

  it("treats URIs that differ only in case as different (matching is exact)", () => {
    expect(parseRedirectUris(["https://a.example/cb", "https://a.example/CB"]).success).toBe(true);
  });

  it("explains a duplicated bad URI once per rule, not once per copy", () => {
    expect(rulesOf(["https://a.example/#x", "https://a.example/#x"])).toEqual([
      "duplicate",
      "fragment",
    ]);
  });

  it("reports every problem of the list, not only the first", () => {
    expect(
      rulesOf(["http://example.com/cb", "https://ok.example/cb#", "ftp://x.example/"]),
    ).toEqual(["http_not_loopback", "fragment", "scheme"]);
  });
});

describe("parseRedirectUris: URI rules", () => {
  it.each<[string, RedirectUriRule]>([
    // malformed and relative
    ["https://exa mple.com/cb", "whitespace"],
    ["https://example.com/cb\n", "whitespace"],
    ["https://example.com/c\tb", "whitespace"],
    [" https://example.com/cb", "whitespace"],
    ["https://example.com\\@evil.example/cb", "backslash"],
    ["https://", "not_absolute"],
    ["https://exa%mple.com/", "not_absolute"],
    ["not a url", "whitespace"],
    ["example.com/callback", "not_absolute"],
    ["/callback", "not_absolute"],
    ["//example.com/callback", "not_absolute"],
    ["https:example.com/callback", "not_absolute"],
    ["https:/example.com/callback", "not_absolute"],
    ["", "not_absolute"],
    // schemes
    ["javascript:alert(1)", "scheme"],
    ["JavaScript://example.com/%0Aalert(1)", "scheme"],
    ["data:text/html,hi", "scheme"],
    ["com.example.app:/oauth2redirect", "scheme"],
    ["myapp://callback", "scheme"],
    ["ftp://example.com/cb", "scheme"],
    ["file:///etc/passwd", "scheme"],
    // http only on loopback
    ["http://example.com/cb", "http_not_loopback"],
    ["http://localhost.example.com/cb", "http_not_loopback"],
    ["http://app.localhost/cb", "http_not_loopback"],
    ["http://128.0.0.1/cb", "http_not_loopback"],
    ["http://10.0.0.1/cb", "http_not_loopback"],
    ["http://[::2]/cb", "http_not_loopback"],
    // fragments, even empty
    ["https://example.com/cb#", "fragment"],
    ["https://example.com/cb#section", "fragment"],
    ["http://localhost:3000/cb#x", "fragment"],
    // credentials, even empty userinfo
    ["https://user:pass@example.com/cb", "credentials"],
    ["https://user@example.com/cb", "credentials"],
    ["https://:pass@example.com/cb", "credentials"],
    ["https://@example.com/cb", "credentials"],
    ["http://user@localhost/cb", "credentials"],
  ])("refuses %j (%s)", (uri, rule) => {
    expect(rulesOf([uri])).toEqual([rule]);
  });

  it("refuses a URI over 2048 characters, with a shortened quote in the message", () => {
    const uri = `https://app.example.com/${"a".repeat(2048)}`;
    expect(rulesOf([uri])).toEqual(["too_long"]);
    const [message] = messagesOf([uri]);
    expect(message).toContain("longer than 2048 characters");
    expect(message!.length).toBeLessThan(250);
  });

  it("explains http on a remote host in plain English, naming the URI", () => {
    expect(messagesOf(["http://example.com/cb"])).toEqual([
      '"http://example.com/cb": http:// is only allowed for loopback hosts (localhost, 127.0.0.1, [::1])',
    ]);
  });

  it("keeps messages on one line even when the URI carries a newline", () => {
    const [message] = messagesOf(["https://example.com/\ncb"]);
    expect(message).not.toContain("\n");
    expect(message).toContain("\\n");
  });
});

describe("isLoopbackHost", () => {
  it("knows localhost, 127.0.0.0/8 and [::1]", () => {
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("127.0.0.1")).toBe(true);
    expect(isLoopbackHost("127.255.255.254")).toBe(true);
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("127.0.0.1.example.com")).toBe(false);
    expect(isLoopbackHost("example.com")).toBe(false);
  });
});

describe("redirectUrisSchema", () => {
  it("parses a valid list", () => {
    expect(redirectUrisSchema.parse(["https://a.example/cb"])).toEqual(["https://a.example/cb"]);
  });

  it("turns each problem into an issue with the same message", () => {
    const result = redirectUrisSchema.safeParse(["http://example.com/cb", "https://a.example/#"]);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(
      messagesOf(["http://example.com/cb", "https://a.example/#"]),
    );
  });
});
