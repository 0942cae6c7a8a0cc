import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTracing, type RunningTracing } from "../lib/tracing/setup";
import { observedJourney, type JourneySecrets } from "./observed-journey";
import { startObservedServer, type ObservedServer } from "./observed-server";

/**
 * Tracing through the OpenTelemetry SDK, exported to memory: a partner's
 * journey over real HTTP leaves a server span per request (with its request
 * id), spans for the database statements and for the calls to the sandbox
 * bank, and no attribute that holds a secret or bank data.
 */

const exporter = new InMemorySpanExporter();
let tracing: RunningTracing;
let server: ObservedServer;

beforeAll(async () => {
  tracing = startTracing({ exporter, serviceName: "bank-connect-test", batch: false });
  server = await startObservedServer();
});
afterAll(async () => {
  await server.close();
  await tracing.shutdown();
});

describe("tracing", () => {
  let secrets: JourneySecrets;
  let spans: ReadableSpan[];
  let requestIds: string[];

  beforeAll(async () => {
    const seen: string[] = [];
    const original = globalThis.fetch;
    globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
      const response = await original(...args);
      seen.push(response.headers.get("x-request-id") ?? "");
      return response;
    };
    try {
      secrets = await observedJourney(server.origin);
    } finally {
      globalThis.fetch = original;
    }
    requestIds = seen;
    spans = exporter.getFinishedSpans();
  });

  it("has a server span per request, named by route template and carrying the request id", () => {
    const servers = spans.filter((span) => span.kind === SpanKind.SERVER);
    expect(servers.map((span) => span.name)).toEqual([
      "POST /oauth/token",
      "POST /oauth/token",
      "GET /api/accounts",
      "GET /api/accounts/{id}/transactions",
      "POST /api/accounts/{id}/sync",
    ]);
    expect(servers.map((span) => span.attributes["bank_connect.request_id"])).toEqual(requestIds);
    expect(servers.map((span) => span.attributes["http.response.status_code"])).toEqual([
      200, 400, 200, 200, 200,
    ]);
  });

  it("has database spans and bank spans inside the requests' traces", () => {
    const servers = spans.filter((span) => span.kind === SpanKind.SERVER);
    const traceIds = new Set(servers.map((span) => span.spanContext().traceId));
    const inRequests = spans.filter((span) => traceIds.has(span.spanContext().traceId));
    const database = inRequests.filter((span) => span.name.startsWith("db "));
    expect(database.length).toBeGreaterThan(5);
    expect(new Set(database.map((span) => span.attributes["db.system.name"]))).toEqual(
      new Set(["postgresql"]),
    );
    const sync = servers.find((span) => span.name === "POST /api/accounts/{id}/sync");
    const bank = inRequests.filter((span) => span.name.startsWith("upstream "));
    expect(bank.map((span) => span.name)).toEqual(
      expect.arrayContaining(["upstream getBalances", "upstream getTransactions"]),
    );
    for (const span of bank) {
      expect(span.spanContext().traceId).toBe(sync?.spanContext().traceId);
      expect(span.attributes["bank_connect.upstream"]).toBe("sandbox");
    }
  });

  it("puts no secret, address, account or amount in any span", () => {
    const values = spans.flatMap((span) => [
      span.name,
      ...Object.values(span.attributes).map(String),
      ...span.events.flatMap((event) => Object.values(event.attributes ?? {}).map(String)),
    ]);
    const forbidden = [
      secrets.apiKey,
      secrets.clientSecret,
      secrets.code,
      secrets.verifier,
      secrets.email,
      secrets.uid,
      ...secrets.ibans,
      ...secrets.amounts,
    ];
    expect(values.length).toBeGreaterThan(50);
    for (const value of values) {
      for (const secret of forbidden) expect(value, value).not.toContain(secret);
    }
  });
});
