import { context, propagation, SpanStatusCode, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import {
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import packageJson from "../../package.json";
import { getEnv } from "../env";
import { scrubText } from "../log";
import {
  markTracingActive,
  startInstrumentations,
  stopInstrumentations,
  tracingActive,
} from "./index";

/**
 * Starts tracing through the OpenTelemetry SDK: the service's spans, Next's
 * own (it traces through the same global API once a provider is registered),
 * a span per database statement and per pool checkout
 * (@opentelemetry/instrumentation-pg, lib/db/tracing.ts) and one per outgoing HTTP request made
 * with fetch (@opentelemetry/instrumentation-undici), exported over OTLP/HTTP
 * to `OTEL_EXPORTER_OTLP_ENDPOINT`.
 */

/** Attributes that would carry a statement's text: never exported. */
const DROPPED_ATTRIBUTES = ["db.query.text", "db.statement"];

/**
 * The resource every span carries: the service's name, version and
 * environment, then whatever `OTEL_RESOURCE_ATTRIBUTES` (and
 * `OTEL_SERVICE_NAME`) say, which win.
 */
export function serviceResource(serviceName: string, environment: string): Resource {
  return resourceFromAttributes({
    "service.name": serviceName,
    "service.version": packageJson.version,
    "deployment.environment.name": environment,
  }).merge(detectResources({ detectors: [envDetector] }));
}

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
    const attributes = span.attributes as Record<string, unknown>;
    for (const name of DROPPED_ATTRIBUTES) delete attributes[name];
    // A driver's error message may quote a statement's values: only the status code is kept.
    if (span.status.code === SpanStatusCode.ERROR && attributes["db.system.name"] !== undefined) {
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    for (const event of span.events) {
      const eventAttributes = (event.attributes ?? {}) as Record<string, unknown>;
      for (const [name, value] of Object.entries(eventAttributes)) {
        if (typeof value === "string") eventAttributes[name] = scrubText(value);
      }
    }
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
  /** `deployment.environment.name` unless OTEL_RESOURCE_ATTRIBUTES names one. */
  environment?: string;
  /** Batch spans before export (the service); false sends each at once (tests). */
  batch: boolean;
}): RunningTracing {
  const processor = options.batch
    ? new BatchSpanProcessor(options.exporter)
    : new SimpleSpanProcessor(options.exporter);
  const provider = new NodeTracerProvider({
    resource: serviceResource(options.serviceName, options.environment ?? getEnv().nodeEnv),
    spanProcessors: [new ScrubbingProcessor(processor)],
  });
  provider.register();
  // The database driver's (lib/db/tracing.ts), and any other registered.
  startInstrumentations(provider);
  // Subscribes to undici's diagnostics channels, which Node's fetch publishes to.
  const undici = new UndiciInstrumentation();
  undici.setTracerProvider(provider);
  markTracingActive(true);
  return {
    async shutdown() {
      markTracingActive(false);
      undici.disable();
      stopInstrumentations();
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
