import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { getEnv, rawSetting } from "../../lib/env";
import { dataDir } from "../lib/database";
import {
  dropDatabase,
  ensureDatabase,
  findFreePort,
  startEmbeddedPostgres,
  withDatabase,
  type EmbeddedServer,
} from "../lib/embedded-postgres";
import { startLauncher, type LauncherProcess } from "../lib/service-process";
import { startNginx, type NginxSite, type RunningNginx } from "./nginx";

/**
 * Several instances of the production service on one PostgreSQL and one
 * Redis, behind nginx. Every instance has the same settings (the same
 * SECRET_KEY and ISSUER, the proxy's public address) and trusts one proxy hop,
 * as operators run them (docs/operations.md#several-instances).
 */

/** The PostgreSQL server of a run: DATABASE_URL's when set, else an embedded one for the run. */
export interface ScratchServer {
  /** Creates an empty database (no migrations) and returns its URL. */
  createDatabase(label: string): Promise<string>;
  release(): Promise<void>;
}

export async function startScratchServer(label: string): Promise<ScratchServer> {
  const configured = getEnv().databaseUrl;
  const directory = path.join(dataDir(), `${label}-postgres-${process.pid}`);
  let embedded: EmbeddedServer | undefined;
  if (!configured)
    embedded = await startEmbeddedPostgres({ dataDir: directory, persistent: false });
  const serverUrl = configured
    ? withDatabase(configured, "postgres")
    : (embedded?.url("postgres") ?? "");
  const created: string[] = [];
  return {
    async createDatabase(name) {
      const database = `bank_connect_${name}_${randomBytes(4).toString("hex")}`;
      await ensureDatabase(serverUrl, database);
      created.push(database);
      return withDatabase(serverUrl, database);
    },
    async release() {
      for (const database of created) await dropDatabase(serverUrl, database).catch(() => {});
      if (!embedded) return;
      await embedded.stop();
      // stop() returns once PostgreSQL has exited, which may be before its folder is gone.
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** One row per applied migration name, with how often it was applied and whether it finished. */
export async function migrationRows(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      migration_name: string;
      runs: number;
      finished: number;
      rolled_back: number;
    }>(
      `SELECT migration_name, count(*)::int AS runs,
              count(finished_at)::int AS finished, count(rolled_back_at)::int AS rolled_back
         FROM _prisma_migrations GROUP BY migration_name ORDER BY migration_name`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

/**
 * Ports: CLUSTER_PORT and the ones after it when set and free (a machine shared by
 * several checkouts gives each its own range), otherwise any free ones.
 */
export async function clusterPorts(count: number): Promise<number[]> {
  const base = Number(rawSetting("CLUSTER_PORT") ?? 0);
  const ports: number[] = [];
  for (let i = 0; i < count; i += 1) {
    let port = await findFreePort(base ? base + i : 0);
    while (ports.includes(port)) port = await findFreePort();
    ports.push(port);
  }
  return ports;
}

export interface Cluster {
  /** nginx's address for each site, in the order of `sites`. */
  origins: string[];
  instances: LauncherProcess[];
  nginx: RunningNginx;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  label: string;
  instances: number;
  databaseUrl: string;
  settings: Record<string, string | undefined>;
  /**
   * The proxy's sites, as indexes into the instances; default one site over all.
   * The first site's address is every instance's ISSUER.
   */
  sites?: number[][];
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const siteInstances = options.sites ?? [Array.from({ length: options.instances }, (_, i) => i)];
  const ports = await clusterPorts(siteInstances.length + options.instances);
  const sitePorts = ports.slice(0, siteInstances.length);
  const instancePorts = ports.slice(siteInstances.length);
  const sites: NginxSite[] = siteInstances.map((members, i) => ({
    port: sitePorts[i] ?? 0,
    upstreamPorts: members.map((member) => instancePorts[member] ?? 0),
  }));
  const nginx = await startNginx(sites);
  const issuer = nginx.origin(0);

  // All at once: each launcher applies the pending migrations before it serves.
  const started = await Promise.allSettled(
    instancePorts.map((port, i) =>
      startLauncher({
        label: `${options.label}-${i + 1}`,
        databaseUrl: options.databaseUrl,
        issuer,
        port,
        settings: { TRUSTED_PROXY_HOPS: "1", ...options.settings },
      }),
    ),
  );
  const instances = started.flatMap((result) =>
    result.status === "fulfilled" ? [result.value] : [],
  );
  const stop = async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await nginx.stop();
  };
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { origins: sites.map((_, i) => nginx.origin(i)), instances, nginx, stop };
}
