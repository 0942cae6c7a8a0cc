import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { findFreePort } from "../lib/embedded-postgres";
import { sleep } from "../lib/load-client";

/**
 * A Redis server of the run's own (Debian's redis-server, loopback only, no
 * persistence) that the run can kill and start again on the same port.
 */
export interface RunRedis {
  url: string;
  /** Kills the server (SIGKILL: an outage, not a shutdown). */
  kill(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const reachable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

export async function startRunRedis(): Promise<RunRedis> {
  const port = await findFreePort();
  const dir = await mkdtemp(path.join(tmpdir(), "bank-connect-redis-"));
  let child: ChildProcess | undefined;

  const start = async () => {
    const started = spawn(
      "redis-server",
      ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"],
      { cwd: dir, stdio: "ignore" },
    );
    child = started;
    let failure: Error | undefined;
    started.once("error", (error) => (failure = error));
    for (let i = 0; i < 100 && !failure; i += 1) {
      if (await reachable(port)) return;
      await sleep(50);
    }
    throw new Error(
      `redis-server did not start${failure ? ` (${failure.message}; apt-get install redis-server)` : ""}`,
    );
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    async close() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
