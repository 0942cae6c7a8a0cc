import type { TracerProvider } from "@opentelemetry/api";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import pg from "pg";

/**
 * Spans of the database driver through @opentelemetry/instrumentation-pg
 * (docs/observability.md): one per statement (`pg.query:<VERB> <database>`)
 * and one per pool checkout (`pg-pool.connect`), only inside a request or an
 * operation that is traced. The statement's text is dropped before export
 * (lib/tracing/setup.ts) and its values are never recorded.
 *
 * pg is loaded before tracing starts, and Next loads this same copy (it is
 * one of its server-external packages), so the instrumentation's load hook
 * would never see it: its patches are applied to the loaded module, and taken
 * off when tracing stops.
 */
export function instrumentPg(provider: TracerProvider): () => void {
  const instrumentation = new PgInstrumentation({
    enabled: false,
    requireParentSpan: true,
    enhancedDatabaseReporting: false,
  });
  instrumentation.setTracerProvider(provider);
  const targets: Record<string, unknown> = {
    pg,
    // pg's Pool extends pg-pool's, whose connect() the instrumentation wraps.
    "pg-pool": Object.getPrototypeOf(pg.Pool) as unknown,
  };
  const version = (pg as unknown as { version?: string }).version;
  const definitions = instrumentation.getModuleDefinitions();
  for (const definition of definitions) definition.patch?.(targets[definition.name], version);
  return () => {
    for (const definition of definitions) definition.unpatch?.(targets[definition.name]);
  };
}
