import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { errorFields, RELAY_CSP, relayResponse, renderRelayHtml, successFields } from "./relay";

const ISS = "https://connect.example.com";
const hostile = `"><script>alert(1)</script><input name="code" value="x`;

function fieldNames(html: string): string[] {
  return [...html.matchAll(/<input type="hidden" name="([^"]*)"/g)].map((m) => m[1] ?? "");
}

describe("relay page (/docs/relay)", () => {
  it("posts the success fields in the documented order (/docs/relay)", () => {
    const html = renderRelayHtml(
      "https://app.example.com/callback",
      successFields({ code: "c", state: "s", iss: ISS, privateKey: "", publicKey: "" }),
    );
    expect(fieldNames(html)).toEqual(["code", "state", "iss", "privateKey", "publicKey"]);
    expect(html).toContain(
      '<form id="relay" method="post" action="https://app.example.com/callback">',
    );
  });

  it("posts error, error_description, iss, and state only when supplied", () => {
    const withState = errorFields({
      error: "access_denied",
      description: "d",
      iss: ISS,
      state: "s",
    });
    expect(withState.map(([name]) => name)).toEqual(["error", "error_description", "iss", "state"]);
    const without = errorFields({
      error: "access_denied",
      description: "d",
      iss: ISS,
      state: null,
    });
    expect(without.map(([name]) => name)).toEqual(["error", "error_description", "iss"]);
  });

  it("escapes a hostile state and redirect URI so nothing breaks out of the attribute", () => {
    const html = renderRelayHtml(
      `https://app.example.com/cb?x="><script>evil()</script>`,
      errorFields({ error: "access_denied", description: "d", iss: ISS, state: hostile }),
    );
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).not.toContain("<script>evil()</script>");
    expect(html).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(fieldNames(html)).toEqual(["error", "error_description", "iss", "state"]);
    expect(html.match(/<script>/g)).toHaveLength(1);
  });

  it("allows exactly its own script by hash and restricts no form target", () => {
    const html = renderRelayHtml("https://app.example.com/cb", []);
    const script = /<script>(.*?)<\/script>/.exec(html)?.[1] ?? "";
    const style = /<style>(.*?)<\/style>/.exec(html)?.[1] ?? "";
    const hash = (s: string) => createHash("sha256").update(s).digest("base64");
    expect(RELAY_CSP).toContain(`script-src 'sha256-${hash(script)}'`);
    expect(RELAY_CSP).toContain(`style-src 'sha256-${hash(style)}'`);
    expect(RELAY_CSP).toContain("frame-ancestors 'none'");
    expect(RELAY_CSP).not.toContain("form-action");
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it("offers a button to browsers without JavaScript", () => {
    const html = renderRelayHtml("https://app.example.com/cb", []);
    expect(html).toMatch(/<noscript>.*<button type="submit">Continue<\/button><\/noscript>/);
  });

  it("is never cached and never sends a Referer", () => {
    const response = relayResponse("https://app.example.com/cb", []);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("pragma")).toBe("no-cache");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("content-security-policy")).toBe(RELAY_CSP);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });
});
