import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { inSpan, tracingActive } from "./index";
import { startTracing } from "./setup";

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
});
