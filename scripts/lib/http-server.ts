import { readFileSync } from "node:fs";
import path from "node:path";
import next from "next";
import type { NextConfig } from "next";
import { getEnv, setSetting } from "../../lib/env";
import type { EdgeSettings } from "../../lib/http/edge";
import { discoveryAnswer } from "../../lib/oauth/discovery";
import { startTracingFromSettings } from "../../lib/tracing/setup";
import { distDir, REPO_ROOT } from "./database";
import { createServiceServer } from "./service-server";

/**
 * The service's HTTP server: Next's request handler behind a plain Node
 * server (scripts/lib/service-server.ts), and the only way the service is
 * started (docs/edge.md).
 */

export interface RunningServer {
  close(): Promise<void>;
}

/**
 * A production server takes Next's configuration as the build resolved it
 * (`required-server-files.json`), as Next's own standalone server does,
 * rather than loading next.config.ts again: that would compile it with SWC
 * and load the build-time plugins, which cost start time and keep tens of
 * MB of native code resident (docs/operations.md, "Memory and sizing").
 * The launcher has checked the settings already.
 */
function builtConfig(): NextConfig {
  const file = path.join(REPO_ROOT, distDir(), "required-server-files.json");
  const { config } = JSON.parse(readFileSync(file, "utf8")) as { config: NextConfig };
  // Next's standalone server hands it over the same way (and then skips loading the file).
  setSetting("__NEXT_PRIVATE_STANDALONE_CONFIG", JSON.stringify(config));
  return config;
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
    ...(options.dev ? {} : { conf: builtConfig() }),
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
