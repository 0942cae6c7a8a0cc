import { describe, expect, it } from "vitest";
import { formFor, formsOf } from "./browser";
import { nginxConfig } from "./nginx";

describe("the cluster run's browser", () => {
  it("reads each form's action, hidden inputs and submit values, with entities decoded", () => {
    const html =
      '<form method="post" action="/consent/approve"><input type="hidden" name="csrf" value="a&amp;b"/>' +
      '<button type="submit" name="decision" value="approve">Allow</button></form>' +
      '<form action="https://app.example.com/cb?x=1"><input name="code" value="c&quot;1"></form>';
    expect(formsOf(html)).toEqual([
      { action: "/consent/approve", fields: { csrf: "a&b", decision: "approve" } },
      { action: "https://app.example.com/cb?x=1", fields: { code: 'c"1' } },
    ]);
    expect(formFor(html, "https://app.example.com/cb").fields.code).toBe('c"1');
    expect(() => formFor(html, "/login/code")).toThrow(/no form posting to \/login\/code/);
  });
});

describe("the cluster run's nginx configuration", () => {
  it("listens on loopback, balances over its instances and appends the client to X-Forwarded-For", () => {
    const config = nginxConfig("/tmp/x", [{ port: 4000, upstreamPorts: [4001, 4002, 4003] }]);
    expect(config).toContain("listen 127.0.0.1:4000;");
    for (const port of [4001, 4002, 4003]) expect(config).toContain(`server 127.0.0.1:${port};`);
    expect(config).toContain("proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;");
    expect(config).toContain("proxy_set_header Host $http_host;");
    expect(config).toContain("daemon off;");
  });
});
