import { context, propagation, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { getEnv } from "../env";
import { scrubText } from "../log";
import { markTracingActive, tracingActive } from "./index";

/**
 * Starts tracing through the OpenTelemetry SDK: the service's spans, and
 * Next's own (it traces through the same global API once a provider is
 * registered), exported over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`.
 */

/**
 * Next's spans carry the request's URL, query included, and a query can hold
 * a one-time token (the sign-in link) or an authorization code. Before any
 * span is exported, URL-like attributes lose their query and every string
 * attribute is scrubbed of keys and secrets.
 */
class ScrubbingProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}
  onStart(span: Span, parent: Parameters<SpanProcessor["onStart"]>[1]) {
    this.next.onStart(span, parent);
  }
  onEnding(span: Span) {
    for (const [name, value] of Object.entries(span.attributes)) {
      if (typeof value !== "string") continue;
      const withoutQuery = /url|target|query|path/i.test(name)
        ? value.replace(/\?.*$/s, "")
        : value;
      const scrubbed = scrubText(withoutQuery);
      if (scrubbed !== value) span.setAttribute(name, scrubbed);
    }
  }
  onEnd(span: ReadableSpan) {
    this.next.onEnd(span);
  }
  forceFlush() {
    return this.next.forceFlush();
  }
  shutdown() {
    return this.next.shutdown();
  }
}

export interface RunningTracing {
  shutdown(): Promise<void>;
}

/** Registers a tracer provider exporting to `exporter` (tests pass an in-memory one). */
export function startTracing(options: {
  exporter: SpanExporter;
  serviceName: string;
  /** Batch spans before export (the service); false sends each at once (tests). */
  batch: boolean;
}): RunningTracing {
  const processor = options.batch
    ? new BatchSpanProcessor(options.exporter)
    : new SimpleSpanProcessor(options.exporter);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName }),
    spanProcessors: [new ScrubbingProcessor(processor)],
  });
  provider.register();
  markTracingActive(true);
  return {
    async shutdown() {
      markTracingActive(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** Tracing as the settings ask for: started when an OTLP endpoint is set, else nothing. */
export function startTracingFromSettings(): RunningTracing | null {
  const settings = getEnv().tracing;
  if (!settings || tracingActive()) return null;
  return startTracing({
    exporter: new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` }),
    serviceName: settings.serviceName,
    batch: true,
  });
}
