import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv, rawSetting, setSetting } from "../lib/env";
import { createMailer } from "../lib/mail";
import { upstreamNamed } from "../lib/upstream";
import { SANDBOX_SCENARIO_GRACE_MS } from "../lib/upstream/sandbox";
import { connectedPartnerUser } from "./bank-data";
import { startObservedServer, type ObservedServer } from "./observed-server";
import { startSmtpRelay, type SmtpRefusal, type SmtpRelay } from "./smtp-relay";

/**
 * The metrics an on-call engineer reads (docs/observability.md), on GET
 * /metrics over real HTTP after real operations: syncs through the data API
 * against the sandbox bank, first histories stored, calls to the aggregator
 * that succeed and fail, pool waits, and mail through a real SMTP relay.
 */

const TOKEN = "metrics-token-operations-0123456789";
const DAY_MS = 86_400_000;
const previous = {
  token: rawSetting("METRICS_TOKEN"),
  banks: rawSetting("METRICS_BANKS"),
};
let server: ObservedServer;
let relay: SmtpRelay;
let refusal: SmtpRefusal = null;

beforeAll(async () => {
  setSetting("METRICS_TOKEN", TOKEN);
  server = await startObservedServer();
  relay = await startSmtpRelay(() => refusal);
});
afterAll(async () => {
  setSetting("METRICS_TOKEN", previous.token ?? "");
  setSetting("METRICS_BANKS", previous.banks ?? "");
  await server.close();
  await relay.close();
});

async function scrape(): Promise<string> {
  const response = await fetch(`${server.origin}/metrics`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one series in the exposition, 0 when it is absent. */
function valueOf(exposition: string, series: string): number {
  const line = exposition.split("\n").find((text) => text.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const labels = (values: Record<string, string>) =>
  `{${Object.entries(values)
    .map(([name, value]) => `${name}="${value}"`)
    .join(",")}}`;

async function syncOverHttp(partner: Awaited<ReturnType<typeof connectedPartnerUser>>) {
  const response = await fetch(
    `${server.origin}/api/accounts/${partner.stored.accountIds[0]}/sync`,
    {
      method: "POST",
      headers: { Authorization: `Bearer ${partner.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ uid: partner.session.accounts[0]?.uid }),
    },
  );
  await response.arrayBuffer();
  return response.status;
}

describe("operations metrics on GET /metrics", () => {
  it("times syncs and first histories by outcome, and the aggregator's calls by operation and bank", async () => {
    const before = await scrape();
    // Each stores its first history in this process (lib/banking/ingest.ts).
    const healthy = await connectedPartnerUser({ agoMs: 10 * DAY_MS });
    const failing = await connectedPartnerUser({
      bank: { name: "Sandbox Scenario DK: bank error", country: "DK" },
      agoMs: SANDBOX_SCENARIO_GRACE_MS + 60_000,
    });
    expect(await syncOverHttp(healthy)).toBe(200);
    expect(await syncOverHttp(failing)).toBe(502);
    const after = await scrape();
    const moved = (series: string) => valueOf(after, series) - valueOf(before, series);

    expect(moved('bank_connect_ingest_duration_seconds_count{outcome="ok"}')).toBe(2);
    expect(moved('bank_connect_sync_duration_seconds_count{outcome="ok"}')).toBe(1);
    expect(moved('bank_connect_sync_duration_seconds_count{outcome="bank_error"}')).toBe(1);
    expect(after).toContain('bank_connect_sync_duration_seconds_bucket{le="300",outcome="ok"}');

    const nordbank = { upstream: "sandbox", bank: "Sandbox Nordbank DK" };
    const duration = (operation: string, bank: Record<string, string>) =>
      `bank_connect_upstream_request_duration_seconds_count${labels({ upstream: bank.upstream ?? "", operation, bank: bank.bank ?? "" })}`;
    expect(moved(duration("balances", nordbank))).toBe(1);
    expect(moved(duration("transactions", nordbank))).toBeGreaterThan(0);

    const scenario = { upstream: "sandbox", bank: "Sandbox Scenario DK: bank error" };
    const errors = (operation: string) =>
      `bank_connect_upstream_errors_total${labels({ upstream: "sandbox", operation, bank: scenario.bank, reason: "bank_error" })}`;
    expect(moved(errors("balances")) + moved(errors("transactions"))).toBeGreaterThan(0);
    // A failed call is timed too.
    expect(
      moved(duration("balances", scenario)) + moved(duration("transactions", scenario)),
    ).toBeGreaterThan(0);
    // The successful bank has no errors.
    expect(after).not.toMatch(/bank_connect_upstream_errors_total\{[^}]*Sandbox Nordbank DK/);

    // Waiting for a connection is observed on both pools (the sync's on its own pool).
    expect(moved('bank_connect_db_pool_wait_seconds_count{pool="requests"}')).toBeGreaterThan(0);
    expect(moved('bank_connect_db_pool_wait_seconds_count{pool="sync"}')).toBeGreaterThan(0);
    expect(after).toContain('bank_connect_db_pool_wait_seconds_bucket{le="0.001",pool="requests"}');
  });

  it("names only the configured banks: any other is other, and what a person typed is never a label", async () => {
    setSetting("METRICS_BANKS", "Acme Bank, Nordic Example Bank");
    expect(getEnv().metricsBanks).toEqual(["Acme Bank", "Nordic Example Bank"]);
    const before = await scrape();
    const start = (name: string) =>
      upstreamNamed("sandbox").startAuthorization({
        aspsp: { name, country: "DK" },
        psuType: "personal",
        redirectUrl: "http://localhost/banks/callback",
        state: "state",
        validUntil: new Date(Date.now() + DAY_MS),
        language: "en",
      });
    // Neither is a sandbox bank: the sandbox refuses both (bank_error, ASPSP_NOT_FOUND).
    await expect(start("Acme Bank")).rejects.toThrow();
    await expect(start("Bank of jane.doe@example.com")).rejects.toThrow();
    const banks = await upstreamNamed("sandbox").listBanks({ country: "DK" });
    expect(banks.length).toBeGreaterThan(0);
    const after = await scrape();
    const moved = (series: string) => valueOf(after, series) - valueOf(before, series);

    const failed = (bank: string) =>
      `bank_connect_upstream_errors_total${labels({ upstream: "sandbox", operation: "start_authorization", bank, reason: "bank_error" })}`;
    expect(moved(failed("Acme Bank"))).toBe(1);
    expect(moved(failed("other"))).toBe(1);
    expect(after).not.toContain("jane.doe");
    expect(
      moved(
        `bank_connect_upstream_request_duration_seconds_count${labels({ upstream: "sandbox", operation: "list_banks", bank: "none" })}`,
      ),
    ).toBe(1);
  });

  it("counts mails by provider and outcome through a real SMTP relay", async () => {
    const mailer = createMailer({
      mode: "local",
      resendApiKey: undefined,
      mailFrom: "Bank Connect <no-reply@connect.example>",
      smtp: { host: "127.0.0.1", port: relay.port, secure: false, requireTls: false },
    });
    const message = (to: string) => ({
      to,
      subject: "Sign in",
      text: "Your code",
      html: "<p>Your code</p>",
    });
    const before = await scrape();
    refusal = null;
    await mailer.send(message("metrics-accepted@example.com"));
    expect(relay.delivered.has("metrics-accepted@example.com")).toBe(true);
    refusal = { code: 550, message: "Mailbox unavailable" };
    await expect(mailer.send(message("metrics-refused@example.com"))).rejects.toThrow();
    refusal = { code: 451, message: "Try again later" };
    await expect(mailer.send(message("metrics-greylisted@example.com"))).rejects.toThrow();
    refusal = null;
    const after = await scrape();
    const moved = (series: string) => valueOf(after, series) - valueOf(before, series);

    expect(moved('bank_connect_mails_total{provider="smtp",outcome="sent"}')).toBe(1);
    expect(moved('bank_connect_mails_total{provider="smtp",outcome="rejected"}')).toBe(1);
    expect(moved('bank_connect_mails_total{provider="smtp",outcome="unavailable"}')).toBe(1);
    expect(after).not.toContain("metrics-refused@example.com");
  });
});
