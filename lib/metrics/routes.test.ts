import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { routeTemplate } from "./routes";

const APP = path.resolve(import.meta.dirname, "../../app");

/** Every route of the app, as its URL template: `[id]` becomes `{id}`, `(group)` vanishes. */
function appRoutes(dir = APP, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isFile()) {
      return /^(route|page)\.tsx?$/.test(entry.name) ? [prefix === "" ? "/" : prefix] : [];
    }
    if (!entry.isDirectory() || entry.name.startsWith("_")) return [];
    const segment = entry.name.startsWith("(")
      ? ""
      : `/${entry.name.replace(/^\[\.\.\.(\w+)\]$/, "{other}").replace(/^\[(\w+)\]$/, "{$1}")}`;
    return appRoutes(path.join(dir, entry.name), prefix + segment);
  });
}

describe("route templates of the request metrics", () => {
  it("map every route of the app to its own template", () => {
    const routes = appRoutes();
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes) {
      const sample = route.replace(/\{other\}/, "x/y").replace(/\{\w+\}/g, "0f6c9d4e-1b2a");
      expect(routeTemplate(sample), route).toBe(route);
    }
  });

  it("never put an id or a probe's path in a label", () => {
    expect(routeTemplate("/api/accounts/7d1e/transactions")).toBe(
      "/api/accounts/{id}/transactions",
    );
    expect(routeTemplate("/api/partner/clients/obc_abc/")).toBe("/api/partner/clients/{clientId}");
    expect(routeTemplate("/wp-admin/setup.php")).toBe("other");
    expect(routeTemplate("/_next/static/chunks/a1b2.js")).toBe("/_next/{asset}");
  });
});
