import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TracerProvider,
} from "@opentelemetry/api";

/**
 * Spans of the service (docs/observability.md): one server span per request
 * and one per operation of the bank aggregator; the database's and outgoing
 * HTTP requests' spans come from OpenTelemetry's instrumentations (setup.ts). Off unless
 * tracing was started (lib/tracing/setup.ts); then every helper here is a
 * plain call. Attributes name operations, routes and outcomes only: never a
 * secret, a query's text or values, an address, an account or an amount.
 * Errors set the span's status with the error's class name, not its message,
 * which may quote input.
 */

const TRACER_NAME = "bank-connect";
const ACTIVE_KEY = Symbol.for("bank-connect.tracing-active");
const holder = globalThis as unknown as { [ACTIVE_KEY]?: boolean };

/** Whether a tracer provider of ours is running (the setup sets this). */
export function tracingActive(): boolean {
  return holder[ACTIVE_KEY] === true;
}

export function markTracingActive(active: boolean): void {
  holder[ACTIVE_KEY] = active;
}

/**
 * Instrumentations of libraries that live on higher floors (the database
 * driver, lib/db): each registers how to start itself, by name, and is started
 * with the tracer provider when tracing starts (at once when it already runs)
 * and stopped with it. Kept on globalThis: Next's bundle and the server load
 * their own copies of lib/, and a library is instrumented once.
 */
export type Instrumenting = (provider: TracerProvider) => () => void;
const INSTRUMENTATIONS_KEY = Symbol.for("bank-connect.tracing-instrumentations");
interface Instrumentations {
  starts: Map<string, Instrumenting>;
  stops: Map<string, () => void>;
  provider?: TracerProvider;
}
function registry(): Instrumentations {
  const store = holder as unknown as { [INSTRUMENTATIONS_KEY]?: Instrumentations };
  store[INSTRUMENTATIONS_KEY] ??= { starts: new Map(), stops: new Map() };
  return store[INSTRUMENTATIONS_KEY];
}

export function registerInstrumentation(name: string, start: Instrumenting): void {
  const { starts, stops, provider } = registry();
  if (starts.has(name)) return;
  starts.set(name, start);
  if (provider) stops.set(name, start(provider));
}

export function startInstrumentations(provider: TracerProvider): void {
  const instrumentations = registry();
  instrumentations.provider = provider;
  for (const [name, start] of instrumentations.starts) {
    instrumentations.stops.set(name, start(provider));
  }
}

export function stopInstrumentations(): void {
  const instrumentations = registry();
  for (const stop of instrumentations.stops.values()) stop();
  instrumentations.stops.clear();
  instrumentations.provider = undefined;
}

const tracer = () => trace.getTracer(TRACER_NAME);

function fail(span: Span, error: unknown) {
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.name : "error",
  });
}

/** Runs `work` in a span of its own, a child of the current one. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!tracingActive()) return work();
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      fail(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

export interface ServerSpan {
  /** Runs the request's handling with the span as the current one. */
  run<T>(work: () => T): T;
  end(status: number): void;
}

/**
 * The server span of one request, named by its route template. A trusted
 * proxy's `traceparent` makes it part of the proxy's trace.
 */
export function startServerSpan(input: {
  method: string;
  route: string;
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
  trustProxy: boolean;
}): ServerSpan {
  if (!tracingActive()) return { run: (work) => work(), end: () => undefined };
  const parent: Context = input.trustProxy
    ? propagation.extract(ROOT_CONTEXT, input.headers)
    : ROOT_CONTEXT;
  const span = tracer().startSpan(
    `${input.method} ${input.route}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        "http.request.method": input.method,
        "http.route": input.route,
        "bank_connect.request_id": input.requestId,
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  return {
    run: (work) => context.with(active, work),
    end(status) {
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/**
 * Wraps every method of a bank aggregator's client in a span named after it:
 * the operation, with the aggregator's name. The HTTP requests it makes are
 * client spans beneath it (@opentelemetry/instrumentation-undici, setup.ts).
 */
export function tracedUpstream<T extends object>(upstreamName: string, target: T): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) =>
        inSpan(
          `upstream ${property}`,
          { "bank_connect.upstream": upstreamName, "bank_connect.upstream.operation": property },
          async () =>
            (await (value as (...a: unknown[]) => unknown).apply(object, args)) as unknown,
        );
    },
  });
}
