import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { rawSetting } from "../../lib/env";
import { startScratchServer, clusterPorts, type ScratchServer } from "../cluster/cluster";
import { checkAppliedOnce } from "../cluster/migrations";
import { REPO_ROOT } from "../lib/database";
import { sleep } from "../lib/load-client";
import { ensureBuild, exitOf } from "../lib/service-process";
import {
  imageContentProblems,
  NOT_IN_IMAGE,
  readImageContents,
  readImageStart,
  type ImageStart,
} from "./dockerfile";
import { promiseLedger } from "../lib/promises";

/**
 * The image's start, without a container engine (`npm run test:image`, part of
 * `npm test`): the production build started by the Dockerfile's own command
 * (ENTRYPOINT and CMD), in the Dockerfile's environment plus compose.yaml's
 * for the app, and nothing else of this process's environment, as the image's
 * unprivileged user (its uid and gid, from the Dockerfile) on an empty
 * database. The checkout stands in for the image's /app: the same files, owned
 * by root, readable by everyone. Then /healthz must answer 200, pages must
 * render with the edge's headers, the migrations must be applied, and every
 * process of the service must run under that uid. Before that, the files the
 * image would hold (the checkout less .dockerignore) must leave out the tests,
 * journeys, benchmarks and docs/ and keep what the service reads. What this
 * does not cover is written in docs/testing.md#the-image-and-the-deployment-files.
 */

const { check, exit: exitWithVerdict } = promiseLedger();

/** The app service's environment in compose.yaml. */
async function composeAppEnvironment(): Promise<Record<string, string>> {
  const compose = parse(await readFile(path.join(REPO_ROOT, "compose.yaml"), "utf8")) as {
    services?: { app?: { environment?: Record<string, unknown> } };
  };
  const environment = compose.services?.app?.environment ?? {};
  return Object.fromEntries(
    Object.entries(environment).map(([name, value]) => [name, String(value)]),
  );
}

/** Runs as the image's user when this process is root (as CI and containers build), else as itself. */
function asImageUser(image: ImageStart, command: string[]): string[] {
  if (userInfo().uid !== 0) return command;
  return [
    "setpriv",
    `--reuid=${image.uid}`,
    `--regid=${image.gid}`,
    "--clear-groups",
    "--",
    ...command,
  ];
}

/** The uids of a process and all its descendants, from /proc. */
async function processTreeUids(pid: number): Promise<Map<number, number>> {
  const uids = new Map<number, number>();
  const visit = async (at: number) => {
    const status = await readFile(`/proc/${at}/status`, "utf8").catch(() => "");
    const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    if (uid === undefined) return;
    uids.set(at, Number(uid));
    const children = await readFile(`/proc/${at}/task/${at}/children`, "utf8").catch(() => "");
    for (const child of children.trim().split(/\s+/).filter(Boolean)) await visit(Number(child));
  };
  await visit(pid);
  return uids;
}

async function waitForHealth(origin: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the service exited (${child.exitCode}):\n${output()}`);
    const answer = await fetch(`${origin}/healthz`).catch(() => null);
    if (answer?.status === 200) return;
    await sleep(250);
  }
  throw new Error(`no /healthz 200 within 120 s:\n${output()}`);
}

async function main() {
  await ensureBuild(process.argv.includes("--build"));
  const image = await readImageStart();
  const root = userInfo().uid === 0;
  console.log(
    `image start: \`${image.command.join(" ")}\` as ${image.user} (uid ${image.uid}, gid ${image.gid})` +
      `${root ? "" : `; not root here, so as uid ${userInfo().uid}`}`,
  );
  const contents = await readImageContents();
  const problems = imageContentProblems(contents.shipped, contents.all, image);
  for (const problem of problems) check(false, problem);
  console.log(
    `${problems.length ? "FAIL" : "ok  "} the image holds ${contents.shipped.length} of the checkout's ` +
      `${contents.all.length} files: no tests, nor ${NOT_IN_IMAGE.join(", ")}; all the service reads`,
  );
  if (root) {
    // The image's files are root's and readable by everyone; so must the checkout's be.
    const probe = spawnSync("setpriv", [
      `--reuid=${image.uid}`,
      `--regid=${image.gid}`,
      "--clear-groups",
      "--",
      "test",
      "-r",
      path.join(REPO_ROOT, "package.json"),
    ]);
    if (probe.status !== 0) {
      throw new Error(
        `uid ${image.uid} cannot read ${REPO_ROOT}: put the checkout where other users can enter ` +
          `(for example /srv or /opt), or allow entry with chmod o+x on each closed parent folder`,
      );
    }
  }

  let server: ScratchServer | undefined;
  let child: ChildProcess | undefined;
  try {
    server = await startScratchServer("image");
    const databaseUrl = await server.createDatabase("image");
    const [port = 0] = await clusterPorts(1);
    const origin = `http://localhost:${port}`;
    const environment: Record<string, string> = {
      // What the node base image provides; the rest is the Dockerfile's and compose.yaml's.
      PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: REPO_ROOT,
      ...image.environment,
      ...(await composeAppEnvironment()),
      // Addresses of this machine in place of the compose network's.
      DATABASE_URL: databaseUrl,
      ISSUER: origin,
      PORT: String(port),
    };
    const redisUrl = rawSetting("REDIS_URL");
    if (redisUrl) environment.REDIS_URL = redisUrl;
    else delete environment.REDIS_URL;

    const [file = "", ...args] = asImageUser(image, image.command);
    const started = Date.now();
    const service = spawn(file, args, {
      cwd: REPO_ROOT,
      env: environment as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = service;
    let output = "";
    service.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    service.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    await waitForHealth(origin, service, () => output.slice(-2000));
    console.log(
      `ok   /healthz 200 after ${((Date.now() - started) / 1000).toFixed(1)} s on ${origin}`,
    );

    const uids = await processTreeUids(service.pid ?? 0);
    const wrong = [...uids].filter(([, uid]) => uid !== (root ? image.uid : userInfo().uid));
    check(
      uids.size > 0 && wrong.length === 0,
      `processes under another uid: ${JSON.stringify(wrong)}`,
    );
    console.log(`ok   ${uids.size} processes, all uid ${[...new Set(uids.values())].join(", ")}`);

    for (const page of ["/", "/docs"]) {
      const answer = await fetch(`${origin}${page}`);
      const html = await answer.text();
      const csp = answer.headers.get("content-security-policy") ?? "";
      check(answer.status === 200, `${page} answered ${answer.status}`);
      check(html.includes("<html") && html.includes("Bank Connect"), `${page} rendered no page`);
      check(/'nonce-[^']+'/.test(csp), `${page} came without the edge's CSP nonce`);
      console.log(
        `${answer.status === 200 ? "ok  " : "FAIL"} GET ${page}: ${answer.status}, ${html.length} bytes, CSP with a nonce`,
      );
    }
    const summary = await checkAppliedOnce(databaseUrl, "image start", check);
    console.log(`ok   migrations applied by the image's start: ${summary}`);
    const refused = output.match(/EACCES[^\n]*/g) ?? [];
    check(
      refused.length === 0,
      `the service was refused a file: ${refused.slice(0, 3).join("; ")}`,
    );
  } finally {
    const running = child;
    if (running && running.exitCode === null) {
      const exited = exitOf(running);
      running.kill("SIGTERM");
      const timer = setTimeout(() => running.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(timer);
    }
    await server?.release();
  }
  exitWithVerdict("the image's command serves as its unprivileged user");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
