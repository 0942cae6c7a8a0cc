import next from "next";
import { getEnv } from "../../lib/env";
import type { EdgeSettings } from "../../lib/http/edge";
import { discoveryAnswer } from "../../lib/oauth/discovery";
import { startTracingFromSettings } from "../../lib/tracing/setup";
import { REPO_ROOT } from "./database";
import { createServiceServer } from "./service-server";

/**
 * The service's HTTP server: Next's request handler behind a plain Node
 * server (scripts/lib/service-server.ts), and the only way the service is
 * started (docs/edge.md).
 */

export interface RunningServer {
  close(): Promise<void>;
}

export async function serveNext(options: {
  dev: boolean;
  port: number;
  trustedProxyHops: number;
}): Promise<RunningServer> {
  const tracing = startTracingFromSettings();
  const app = next({
    dev: options.dev,
    dir: REPO_ROOT,
    port: options.port,
    turbopack: options.dev,
  });
  await app.prepare();
  const handle = app.getRequestHandler();
  const upgrade = app.getUpgradeHandler();

  const env = getEnv();
  const settings: EdgeSettings = {
    https: env.issuer.startsWith("https://"),
    development: env.nodeEnv === "development",
    constants: discoveryAnswer,
  };

  const server = createServiceServer({
    trustedProxyHops: options.trustedProxyHops,
    settings,
    origin: new URL(env.issuer).origin,
    next: { handle, upgrade },
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, resolve);
  });

  return {
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await tracing?.shutdown();
    },
  };
}
