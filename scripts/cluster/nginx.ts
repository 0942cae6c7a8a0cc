import { spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { sleep } from "../lib/load-client";

/**
 * Debian's nginx as a reverse proxy on loopback, in the foreground as a child
 * of this process, with a configuration generated into a folder of its own.
 * Each site listens on one port and balances round robin over its upstream
 * ports. It forwards as a deployment's proxy would: Host unchanged, the
 * client's address appended to X-Forwarded-For, X-Forwarded-Proto; and it names
 * the instance that answered in `X-Upstream`, so a test can see that every
 * instance took part.
 */

export const NGINX_BIN = "/usr/sbin/nginx";

export interface NginxSite {
  port: number;
  upstreamPorts: number[];
}

export interface RunningNginx {
  origin(site: number): string;
  /** Its error log (warnings and worse). */
  errorLog: string;
  stop(): Promise<void>;
}

function siteConfig(site: NginxSite, index: number): string {
  const servers = site.upstreamPorts.map((port) => `    server 127.0.0.1:${port};`).join("\n");
  return `
  upstream bank_connect_${index} {
${servers}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${site.port};
    location / {
      proxy_pass http://bank_connect_${index};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_read_timeout 120s;
      add_header X-Upstream $upstream_addr always;
    }
  }`;
}

/** The whole configuration: one worker, no access log, every path in `dir`. */
export function nginxConfig(dir: string, sites: NginxSite[]): string {
  return `daemon off;
worker_processes 1;
pid ${path.join(dir, "nginx.pid")};
error_log ${path.join(dir, "error.log")} warn;
events {
  worker_connections 1024;
}
http {
  access_log off;
  client_body_temp_path ${path.join(dir, "client-body")};
  proxy_temp_path ${path.join(dir, "proxy")};
  fastcgi_temp_path ${path.join(dir, "fastcgi")};
  uwsgi_temp_path ${path.join(dir, "uwsgi")};
  scgi_temp_path ${path.join(dir, "scgi")};
  # The service's own body limits decide (docs/request-bodies.md).
  client_max_body_size 0;
${sites.map(siteConfig).join("\n")}
}
`;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

export async function startNginx(sites: NginxSite[]): Promise<RunningNginx> {
  const dir = await mkdtemp(path.join(tmpdir(), "bank-connect-nginx-"));
  // Started as root, nginx's workers run as `nobody`: they must be able to enter the folder.
  await chmod(dir, 0o755);
  const configFile = path.join(dir, "nginx.conf");
  await writeFile(configFile, nginxConfig(dir, sites));
  const errorLog = path.join(dir, "error.log");

  // -e: the startup errors go to stderr, not to the distribution's log file.
  const child: ChildProcess = spawn(NGINX_BIN, ["-p", dir, "-c", configFile, "-e", "stderr"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  let failure: Error | undefined;
  child.once("error", (error) => (failure = error));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };

  for (let i = 0; i < 100; i += 1) {
    if (failure || child.exitCode !== null) break;
    const up = await Promise.all(sites.map((site) => listening(site.port)));
    if (up.every(Boolean)) {
      return {
        origin: (site) => `http://localhost:${sites[site]?.port ?? 0}`,
        errorLog,
        stop,
      };
    }
    await sleep(50);
  }
  const log = await readFile(errorLog, "utf8").catch(() => "");
  await stop();
  throw new Error(
    `nginx did not start${failure ? ` (${failure.message}; apt-get install nginx)` : ""}: ${stderr}${log}`,
  );
}
