import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import packageJson from "../../package.json";
import { db } from "../db/client";
import { setSetting } from "../env";
import { inSpan, tracingActive } from "./index";
import { startTracing } from "./setup";

afterEach(() => setSetting("OTEL_RESOURCE_ATTRIBUTES", ""));

describe("tracing setup", () => {
  it("strips queries from URL attributes and scrubs keys from every span, Next's included", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ exporter, serviceName: "test", batch: false });
    const key = `ebk_${"k".repeat(43)}`;
    const span = trace.getTracer("next.js").startSpan("GET /login/link/confirm", {
      attributes: {
        "http.target": "/login/link/confirm?token=one-time-secret-token",
        "http.url": "http://localhost:3000/oauth/authorize?code=abc&state=x",
        "next.note": `key ${key}`,
        "http.status_code": 200,
      },
    });
    span.end();
    const [exported] = exporter.getFinishedSpans();
    await tracing.shutdown();
    expect(exported?.attributes).toEqual({
      "http.target": "/login/link/confirm",
      "http.url": "http://localhost:3000/oauth/authorize",
      "next.note": "key [redacted]",
      "http.status_code": 200,
    });
  });

  it("is off until started: spans cost a plain call", async () => {
    expect(tracingActive()).toBe(false);
    await expect(inSpan("work", {}, () => Promise.resolve(7))).resolves.toBe(7);
  });

  it("names the service, its version and environment on every span; OTEL_RESOURCE_ATTRIBUTES adds and overrides", async () => {
    const exporter = new InMemorySpanExporter();
    let tracing = startTracing({
      exporter,
      serviceName: "bank-connect",
      environment: "production",
      batch: false,
    });
    trace.getTracer("test").startSpan("one").end();
    // The in-memory exporter forgets its spans when shut down: read them first.
    const [one] = exporter.getFinishedSpans();
    await tracing.shutdown();
    expect(one?.resource.attributes).toMatchObject({
      "service.name": "bank-connect",
      "service.version": packageJson.version,
      "deployment.environment.name": "production",
    });

    const again = new InMemorySpanExporter();
    setSetting(
      "OTEL_RESOURCE_ATTRIBUTES",
      "deployment.environment.name=staging,k8s.namespace.name=bank-connect",
    );
    tracing = startTracing({
      exporter: again,
      serviceName: "bank-connect",
      environment: "production",
      batch: false,
    });
    trace.getTracer("test").startSpan("two").end();
    const [two] = again.getFinishedSpans();
    await tracing.shutdown();
    expect(two?.resource.attributes).toMatchObject({
      "service.name": "bank-connect",
      "service.version": packageJson.version,
      "deployment.environment.name": "staging",
      "k8s.namespace.name": "bank-connect",
    });
  });

  it("traces outgoing fetch requests as client spans of the current trace, without their query", async () => {
    const upstream = createServer((request, response) => {
      response.end(request.headers.traceparent ?? "none");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const { port } = upstream.address() as AddressInfo;
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ exporter, serviceName: "test", batch: false });
    let traceparent = "";
    let spans: ReadableSpan[] = [];
    try {
      await inSpan("upstream getBalances", {}, async () => {
        const answer = await fetch(`http://127.0.0.1:${port}/accounts/x/balances?code=secret-code`);
        traceparent = await answer.text();
      });
    } finally {
      spans = exporter.getFinishedSpans();
      await tracing.shutdown();
      await new Promise((resolve) => upstream.close(resolve));
    }
    const operation = spans.find((span) => span.name === "upstream getBalances");
    const request = spans.find((span) => span.kind === SpanKind.CLIENT);
    expect(request?.name).toBe("GET");
    expect(request?.parentSpanContext?.spanId).toBe(operation?.spanContext().spanId);
    expect(request?.attributes["http.response.status_code"]).toBe(200);
    expect(request?.attributes["url.full"]).toBe(`http://127.0.0.1:${port}/accounts/x/balances`);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain("secret-code");
    // The trace goes on at the other end.
    expect(traceparent).toContain(request?.spanContext().traceId);
  });

  it("spans no database statement outside a request or an operation, nor a failed one's message", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ exporter, serviceName: "test", batch: false });
    let spans: ReadableSpan[] = [];
    try {
      await db().$queryRaw`SELECT 1`;
      await inSpan("work", {}, () => db().$queryRaw`SELECT 2`);
      // The driver's message quotes the value: "invalid input syntax for type integer: …".
      await inSpan("failing", {}, () => db().$queryRawUnsafe("SELECT 'quoted-value'::int")).catch(
        () => undefined,
      );
    } finally {
      spans = exporter.getFinishedSpans();
      await tracing.shutdown();
    }
    const statements = spans.filter((span) => span.name.startsWith("pg.query:"));
    expect(statements).toHaveLength(2);
    const work = spans.find((span) => span.name === "work");
    expect(statements[0]?.parentSpanContext?.spanId).toBe(work?.spanContext().spanId);
    expect(statements[0]?.attributes["db.system.name"]).toBe("postgresql");
    const failed = statements[1];
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(JSON.stringify([failed?.attributes, failed?.events, failed?.status])).not.toContain(
      "quoted-value",
    );
  });
});
