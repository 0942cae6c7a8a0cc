import { afterEach, describe, expect, it } from "vitest";
import { rawSetting, setSetting } from "../env";
import { handleDemoCallback, handleDemoRevoke, handleDemoStart, handleDemoSync } from "./demo";

const ORIGIN = "http://localhost:3000";

function post(path: string, headers: Record<string, string> = {}) {
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: "csrf=x",
  });
}

const original = {
  ISSUER: rawSetting("ISSUER") ?? "",
  DEMO_ENABLED: rawSetting("DEMO_ENABLED") ?? "",
};

afterEach(() => {
  for (const [name, value] of Object.entries(original)) setSetting(name, value);
});

describe("the demo partner's endpoints", () => {
  it("answer 404 on every path when the demo is disabled", async () => {
    setSetting("ISSUER", ORIGIN);
    setSetting("DEMO_ENABLED", "false");
    const handlers = [
      [handleDemoStart, "/demo/start"],
      [handleDemoCallback, "/demo/callback"],
      [handleDemoSync, "/demo/sync"],
      [handleDemoRevoke, "/demo/revoke"],
    ] as const;
    for (const [handle, path] of handlers) {
      const response = await handle(post(path, { Origin: ORIGIN }));
      expect(response.status, path).toBe(404);
    }
  });

  it("refuse a page POST from another origin (CSRF)", async () => {
    setSetting("ISSUER", ORIGIN);
    setSetting("DEMO_ENABLED", "true");
    for (const handle of [handleDemoStart, handleDemoSync, handleDemoRevoke]) {
      expect((await handle(post("/demo/x", { Origin: "https://evil.example" }))).status).toBe(403);
      expect((await handle(post("/demo/x"))).status).toBe(403);
    }
  });
});
