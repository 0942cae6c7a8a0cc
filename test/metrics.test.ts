import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawSetting, setSetting } from "../lib/env";
import { observedJourney } from "./observed-journey";
import { startObservedServer, type ObservedServer } from "./observed-server";

/** GET /metrics over real HTTP, after a partner's journey through the same server. */

const TOKEN = "metrics-token-0123456789abcdef";
let server: ObservedServer;
const previous = rawSetting("METRICS_TOKEN");

beforeAll(async () => {
  server = await startObservedServer();
});
afterAll(async () => {
  setSetting("METRICS_TOKEN", previous ?? "");
  await server.close();
});

const scrape = (authorization?: string) =>
  fetch(`${server.origin}/metrics`, {
    headers: authorization ? { Authorization: authorization } : {},
  });

/** The value of one series in the exposition, 0 when it is absent. */
function valueOf(exposition: string, series: string): number {
  const line = exposition.split("\n").find((text) => text.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("GET /metrics", () => {
  it("does not exist without METRICS_TOKEN, and refuses a missing or wrong token", async () => {
    setSetting("METRICS_TOKEN", "");
    const absent = await scrape(`Bearer ${TOKEN}`);
    expect(absent.status).toBe(404);
    expect(await absent.text()).not.toContain("bank_connect_");
    setSetting("METRICS_TOKEN", TOKEN);
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, "Bearer "]) {
      const refused = await scrape(authorization);
      expect(refused.status, String(authorization)).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(await refused.text()).toBe("");
    }
  });

  it("counts a journey: requests by route template, latency, token exchanges, syncs, flow steps, rate limits, pools", async () => {
    setSetting("METRICS_TOKEN", TOKEN);
    const before = await (await scrape(`Bearer ${TOKEN}`)).text();
    await observedJourney(server.origin);
    // The cancel endpoint's limit is 50 a minute per address: the 51st is refused at the edge.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 51; attempt += 1) {
      statuses.push((await fetch(`${server.origin}/oauth/cancel`, { method: "POST" })).status);
    }
    expect(statuses.at(-1)).toBe(429);

    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const after = await response.text();
    const moved = (series: string) => valueOf(after, series) - valueOf(before, series);

    const requests = (route: string, method: string, status: number) =>
      `bank_connect_http_requests_total{route="${route}",method="${method}",status="${status}"}`;
    expect(moved(requests("/oauth/token", "POST", 200))).toBe(1);
    expect(moved(requests("/oauth/token", "POST", 400))).toBe(1);
    expect(moved(requests("/api/accounts", "GET", 200))).toBe(1);
    expect(moved(requests("/api/accounts/{id}/transactions", "GET", 200))).toBe(1);
    expect(moved(requests("/api/accounts/{id}/sync", "POST", 200))).toBe(1);
    expect(moved(requests("/oauth/cancel", "POST", 429))).toBe(1);
    expect(
      moved(
        'bank_connect_http_request_duration_seconds_count{route="/api/accounts/{id}/sync",method="POST"}',
      ),
    ).toBe(1);
    // No id ever becomes a label.
    expect(after).not.toMatch(/route="[^"]*[0-9a-f]{8}-[0-9a-f]{4}/);

    expect(moved('bank_connect_token_exchanges_total{outcome="ok"}')).toBe(1);
    expect(moved('bank_connect_token_exchanges_total{outcome="invalid_grant"}')).toBe(1);
    expect(moved('bank_connect_syncs_total{outcome="ok"}')).toBe(1);
    expect(moved('bank_connect_rate_limited_total{policy="cancel"}')).toBe(1);
    expect(moved('bank_connect_flow_steps_total{step="started"}')).toBe(1);
    expect(moved('bank_connect_flow_steps_total{step="approved"}')).toBe(1);

    expect(valueOf(after, 'bank_connect_db_pool_connections{pool="requests"}')).toBeGreaterThan(0);
    expect(after).toContain('bank_connect_db_pool_idle_connections{pool="requests"}');
    expect(after).toContain('bank_connect_db_pool_waiting_requests{pool="requests"}');
    expect(after).toContain("nodejs_eventloop_lag_seconds ");
  });
});
