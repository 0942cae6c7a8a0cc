import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { childEnv } from "../../lib/env";
import { findFreePort } from "../../scripts/lib/embedded-postgres";
import { journeyDatabaseUrl } from "./database";
import { E2E_PORT } from "./origin";
import { SERVER_LOG } from "./secrets-seen";

/**
 * A second instance of the service for a journey that needs other settings
 * than the journeys' server (partner sign-up switched off, a mail relay that
 * refuses): `npm start` on the same production build and the same database,
 * on a port of its own next to E2E_PORT (another free one if that is taken).
 * Its output goes to the journeys' server log too, so the last project scans
 * it for leaked secrets like the first server's.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface SecondServer {
  origin: string;
  stop(): Promise<void>;
}

export async function startSecondServer(
  settings: Record<string, string>,
  portOffset: number,
): Promise<SecondServer> {
  const port = await findFreePort(E2E_PORT + portOffset);
  const origin = `http://localhost:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/launch.ts", "start"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: childEnv({
      NODE_ENV: "production",
      LOCAL_ONLY: "true",
      DATABASE_URL: journeyDatabaseUrl(),
      PORT: String(port),
      ISSUER: origin,
      // The journeys' server seeded the demo partner already.
      DEMO_ENABLED: "false",
      ...settings,
    }),
  });
  const recent: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.on("data", (chunk: Buffer) => {
      appendFileSync(SERVER_LOG, chunk);
      recent.push(chunk.toString("utf8"));
      if (recent.length > 40) recent.shift();
    });
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };

  const started = Date.now();
  while (Date.now() - started < 120_000) {
    if (child.exitCode !== null) break;
    const up = await fetch(`${origin}/healthz`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (up) return { origin, stop };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`the second server did not start on ${origin}:\n${recent.join("")}`);
}
