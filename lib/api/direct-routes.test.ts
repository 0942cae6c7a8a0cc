import { describe, expect, it } from "vitest";
import * as accountSync from "@/app/api/accounts/[id]/sync/route";
import * as transactions from "@/app/api/accounts/[id]/transactions/route";
import * as accounts from "@/app/api/accounts/route";
import * as connections from "@/app/api/connections/route";
import * as bulkSync from "@/app/api/sync/route";
import * as health from "@/app/healthz/route";
import * as livez from "@/app/livez/route";
import * as readyz from "@/app/readyz/route";
import * as revoke from "@/app/oauth/revoke/route";
import * as token from "@/app/oauth/token/route";
import * as userinfo from "@/app/oauth/userinfo/route";
import { routeTemplate } from "../metrics/routes";
import { DIRECT_ROUTES, matchDirectRoute } from "./direct-routes";

describe("the partner API's direct routes", () => {
  it("are the very handlers the app's route files export, so Next and the direct lane agree", () => {
    const exported = new Map<string, unknown>([
      ["POST /oauth/token", token.POST],
      ["POST /oauth/revoke", revoke.POST],
      ["GET /oauth/userinfo", userinfo.GET],
      ["GET /api/accounts", accounts.GET],
      ["GET /api/accounts/:id/transactions", transactions.GET],
      ["POST /api/accounts/:id/sync", accountSync.POST],
      ["GET /api/connections", connections.GET],
      ["POST /api/sync", bulkSync.POST],
      ["GET /healthz", health.GET],
      ["GET /livez", livez.GET],
      ["GET /readyz", readyz.GET],
    ]);
    expect(DIRECT_ROUTES.map((r) => `${r.method} /${r.segments.join("/")}`).sort()).toEqual(
      [...exported.keys()].sort(),
    );
    for (const r of DIRECT_ROUTES) {
      expect(r.handler, `${r.method} /${r.segments.join("/")}`).toBe(
        exported.get(`${r.method} /${r.segments.join("/")}`),
      );
    }
  });

  it("match exact paths and methods, with parameters percent-decoded", () => {
    expect(matchDirectRoute("GET", "/api/accounts")?.handler).toBe(accounts.GET);
    expect(matchDirectRoute("GET", "/api/accounts/a%20b%2Fc/transactions")).toEqual({
      handler: transactions.GET,
      params: { id: "a b/c" },
    });
    expect(matchDirectRoute("POST", "/api/accounts/abc/sync")?.params).toEqual({ id: "abc" });
    expect(matchDirectRoute("POST", "/oauth/token")?.handler).toBe(token.POST);
  });

  it("leave everything else to Next: other methods, trailing slashes, empty or undecodable segments", () => {
    for (const [method, path] of [
      ["HEAD", "/api/accounts"],
      ["DELETE", "/api/accounts"],
      ["GET", "/oauth/token"],
      ["GET", "/api/accounts/"],
      ["GET", "/api/accounts//transactions"],
      ["GET", "/api/accounts/%E0%A4%A/transactions"],
      ["GET", "/api/accounts/x/transactions/"],
      ["GET", "/api"],
      ["GET", "/login"],
    ] as const) {
      expect(matchDirectRoute(method, path), `${method} ${path}`).toBeNull();
    }
  });

  it("are counted under their route templates", () => {
    for (const r of DIRECT_ROUTES) {
      const path = "/" + r.segments.map((s) => (s.startsWith(":") ? "some-id" : s)).join("/");
      expect(routeTemplate(path), path).not.toBe("other");
    }
  });
});
