import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { matchDirectRoute } from "../lib/api/direct-routes";
import { db } from "../lib/db/client";
import { log } from "../lib/log";
import { startTracing, type RunningTracing } from "../lib/tracing/setup";
import { observedJourney, type JourneySecrets } from "./observed-journey";
import { startObservedServer, type ObservedServer } from "./observed-server";
import { startServiceServer } from "./service-server";

/**
 * Tracing through the OpenTelemetry SDK, exported to memory: a partner's
 * journey over real HTTP leaves a server span per request (with its request
 * id), spans for the database statements (@opentelemetry/instrumentation-pg)
 * and for the operations of the sandbox bank, log lines that carry their
 * request's trace, and no attribute that holds a secret or bank data.
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
    // @opentelemetry/instrumentation-pg: one span per statement, named by its verb, without its text.
    const database = inRequests.filter((span) => span.name.startsWith("pg.query:"));
    expect(database.length).toBeGreaterThan(5);
    expect(new Set(database.map((span) => span.attributes["db.system.name"]))).toEqual(
      new Set(["postgresql"]),
    );
    expect(database.map((span) => span.name)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^pg\.query:SELECT /)]),
    );
    for (const span of database) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.attributes).not.toHaveProperty("db.query.text");
      expect(span.attributes).not.toHaveProperty("db.statement");
    }
    const sync = servers.find((span) => span.name === "POST /api/accounts/{id}/sync");
    const bank = inRequests.filter((span) => span.name.startsWith("upstream "));
    expect(bank.map((span) => span.name)).toEqual(
      expect.arrayContaining(["upstream getBalances", "upstream getTransactions"]),
    );
    for (const span of bank) {
      expect(span.kind).toBe(SpanKind.INTERNAL);
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

describe("log lines inside a traced request", () => {
  const key = `ebk_${"k".repeat(43)}`;

  /** The service's own server, with two extra direct routes: one that logs and queries, one that fails. */
  async function serve() {
    return startServiceServer({
      directRoute: (method, pathname) => {
        if (pathname === "/trace-probe/log") {
          return {
            params: {},
            handler: async () => {
              await db().$queryRaw`SELECT 1`;
              log.info("test.traced_line", { status_code: 200 });
              return new Response("ok");
            },
          };
        }
        if (pathname === "/trace-probe/fail") {
          return {
            params: {},
            handler: () => Promise.reject(new Error(`upstream refused the key ${key}`)),
          };
        }
        return matchDirectRoute(method, pathname);
      },
    });
  }

  function linesOf(stream: NodeJS.WriteStream, event: string) {
    const written = vi.spyOn(stream, "write");
    return () => {
      const lines = written.mock.calls
        .map((call) => String(call[0]))
        .filter((text) => text.includes(`"event":"${event}"`))
        .map((text) => JSON.parse(text) as Record<string, unknown>);
      return lines;
    };
  }

  it("carry the request's trace_id and span_id, and its statements are spans of that trace", async () => {
    const server = await serve();
    const lines = linesOf(process.stdout, "test.traced_line");
    exporter.reset();
    try {
      expect((await fetch(`${server.origin}/trace-probe/log`)).status).toBe(200);
    } finally {
      await server.close();
      vi.restoreAllMocks();
    }
    const request = exporter
      .getFinishedSpans()
      .find((span) => span.kind === SpanKind.SERVER && span.name === "GET other");
    expect(request).toBeDefined();
    const [line] = lines();
    expect(line).toMatchObject({
      event: "test.traced_line",
      status_code: 200,
      trace_id: request?.spanContext().traceId,
      span_id: request?.spanContext().spanId,
    });
    const statement = exporter.getFinishedSpans().find((span) => span.name.startsWith("pg.query:"));
    expect(statement?.spanContext().traceId).toBe(request?.spanContext().traceId);
  });

  it("an error at error level keeps its stack, scrubbed of the secret its message held", async () => {
    const server = await serve();
    const lines = linesOf(process.stderr, "http.request_failed");
    exporter.reset();
    try {
      expect((await fetch(`${server.origin}/trace-probe/fail`)).status).toBe(500);
    } finally {
      await server.close();
      vi.restoreAllMocks();
    }
    const request = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER);
    const [line] = lines() as { error: { message: string; stack: string }; trace_id: string }[];
    expect(line?.trace_id).toBe(request?.spanContext().traceId);
    expect(line?.error.message).toBe("upstream refused the key [redacted]");
    expect(line?.error.stack).toMatch(/^Error: upstream refused the key \[redacted\]\n\s+at /);
    expect(line?.error.stack).toContain("tracing.test.ts");
    expect(JSON.stringify(line)).not.toContain(key);
  });
});
