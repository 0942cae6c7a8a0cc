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
} from "@opentelemetry/api";

/**
 * Spans of the service (docs/observability.md): one server span per request,
 * one per database query and one per call to the bank aggregator. Off unless
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

/**
 * A span for a callback-style operation: `start` returns the function that
 * ends it (with the error, if any). Nothing is recorded while tracing is off.
 */
export function startSpan(
  name: string,
  attributes: Attributes,
  kind: SpanKind = SpanKind.CLIENT,
): (error?: unknown) => void {
  if (!tracingActive()) return () => undefined;
  const span = tracer().startSpan(name, { kind, attributes });
  return (error?: unknown) => {
    if (error) fail(span, error);
    span.end();
  };
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

/** Wraps every method of a bank aggregator's client in a span named after it. */
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
          SpanKind.CLIENT,
        );
    },
  });
}
