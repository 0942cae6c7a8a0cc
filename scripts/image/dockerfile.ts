import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import dockerignore from "@balena/dockerignore";
import { DockerfileParser, Env, type Instruction } from "dockerfile-ast";
import { REPO_ROOT } from "../lib/database";

/**
 * What the image's last stage says about how the service starts: the command
 * (ENTRYPOINT then CMD, exec form), its environment (ENV), its working
 * directory, and the user it runs as with that user's numeric ids (from the
 * stage's `useradd`/`groupadd`). The image check runs exactly this, so a change
 * to the Dockerfile changes what is tested.
 */

export interface ImageStart {
  command: string[];
  environment: Record<string, string>;
  workdir: string;
  user: string;
  uid: number;
  gid: number;
}

function execForm(instruction: Instruction | undefined, keyword: string): string[] {
  if (!instruction) return [];
  const content = instruction.getArgumentsContent() ?? "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === "string")) {
    throw new Error(`the Dockerfile's ${keyword} is not in exec form: ${content}`);
  }
  return parsed as string[];
}

function flag(command: string, name: string, tool: string): number {
  const value = new RegExp(`--${name}\\s+(\\d+)`).exec(command)?.[1];
  if (!value) throw new Error(`the Dockerfile's ${tool} gives no --${name}`);
  return Number(value);
}

export function parseImageStart(text: string): ImageStart {
  const instructions = DockerfileParser.parse(text).getInstructions();
  const from = instructions.filter((i) => i.getKeyword() === "FROM").at(-1);
  if (!from) throw new Error("the Dockerfile has no FROM");
  const runtime = instructions.slice(instructions.indexOf(from));
  const last = (keyword: string) => runtime.filter((i) => i.getKeyword() === keyword).at(-1);

  const environment: Record<string, string> = {};
  for (const instruction of runtime) {
    if (!(instruction instanceof Env)) continue;
    for (const property of instruction.getProperties()) {
      // The parser keeps a quoted value's quotes; Docker does not.
      const value = property.getUnescapedValue() ?? "";
      environment[property.getName()] = /^(["']).*\1$/s.test(value) ? value.slice(1, -1) : value;
    }
  }
  const user = last("USER")?.getArgumentsContent() ?? "root";
  const accounts = runtime
    .filter((i) => i.getKeyword() === "RUN")
    .map((i) => i.getArgumentsContent() ?? "")
    .find((command) => command.includes("useradd") && command.includes(user));
  if (!accounts) throw new Error(`the Dockerfile creates no user ${user}`);
  const [groupadd = "", useradd = ""] = [
    accounts.slice(accounts.indexOf("groupadd"), accounts.indexOf("useradd")),
    accounts.slice(accounts.indexOf("useradd")),
  ];
  return {
    command: [...execForm(last("ENTRYPOINT"), "ENTRYPOINT"), ...execForm(last("CMD"), "CMD")],
    environment,
    workdir: last("WORKDIR")?.getArgumentsContent() ?? "/",
    user,
    uid: flag(useradd, "uid", "useradd"),
    gid: flag(groupadd, "gid", "groupadd"),
  };
}

export async function readImageStart(): Promise<ImageStart> {
  return parseImageStart(await readFile(path.join(REPO_ROOT, "Dockerfile"), "utf8"));
}

/**
 * What the image holds of the checkout. The build stage copies the build context (the
 * checkout less .dockerignore, with Docker's own matching rules) and the runtime stage
 * takes /app from the build stage only, so .dockerignore decides. The tests, journeys,
 * benchmarks and load runs and the written docs stay out; what the service reads from
 * disk when it runs must be in.
 */

/** Folders of the checkout that are no part of the running service. */
export const NOT_IN_IMAGE = [
  "test",
  "e2e",
  "docs",
  "scripts/bench",
  "scripts/load",
  "scripts/fuzz",
  "scripts/cluster",
  "scripts/image",
];

/** What the service reads from disk at run time besides its command's own script. */
export const READ_AT_RUN_TIME = [
  "package.json",
  "scripts/migrate.ts",
  "prisma/migrations/",
  "lib/docs/examples/",
];

/** The files of `files` (paths relative to the checkout) that reach the image. */
export function imageFiles(dockerfile: string, ignoreFile: string, files: string[]): string[] {
  const instructions = DockerfileParser.parse(dockerfile).getInstructions();
  const stages = instructions.filter((i) => i.getKeyword() === "FROM");
  const runtime = instructions.slice(instructions.indexOf(stages.at(-1)!));
  const fromContext = runtime.filter(
    (i) => ["COPY", "ADD"].includes(i.getKeyword()) && !/\s--from=/.test(i.getTextContent()),
  );
  if (fromContext.length > 0) {
    throw new Error(
      `the runtime stage copies from the build context: ${fromContext[0]!.getArgumentsContent()}`,
    );
  }
  return dockerignore({ ignorecase: false }).add(ignoreFile).filter(files);
}

/** Why the image would hold too much or too little; empty when it holds what it should. */
export function imageContentProblems(
  shipped: string[],
  all: string[],
  image: ImageStart,
): string[] {
  const problems: string[] = [];
  for (const folder of NOT_IN_IMAGE) {
    const inside = shipped.filter((file) => file.startsWith(`${folder}/`));
    if (inside.length > 0)
      problems.push(`the image holds ${folder}/: ${inside.slice(0, 3).join(", ")}`);
  }
  const tests = shipped.filter((file) => /\.test\.tsx?$/.test(file));
  if (tests.length > 0) problems.push(`the image holds tests: ${tests.slice(0, 3).join(", ")}`);
  const scripts = image.command.filter((part) => all.includes(part));
  for (const needed of [...scripts, ...READ_AT_RUN_TIME]) {
    const wanted = needed.endsWith("/") ? all.filter((file) => file.startsWith(needed)) : [needed];
    const missing = wanted.filter((file) => !shipped.includes(file));
    if (wanted.length === 0 || missing.length > 0) {
      problems.push(
        `the image lacks ${needed}${missing.length ? `: ${missing.slice(0, 3).join(", ")}` : ""}`,
      );
    }
  }
  return problems;
}

/** The checkout's files as git knows them (tracked and not ignored), and those the image gets. */
export async function readImageContents(): Promise<{ all: string[]; shipped: string[] }> {
  const { stdout } = await promisify(execFile)(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const all = stdout.split("\0").filter(Boolean);
  const shipped = imageFiles(
    await readFile(path.join(REPO_ROOT, "Dockerfile"), "utf8"),
    await readFile(path.join(REPO_ROOT, ".dockerignore"), "utf8"),
    all,
  );
  return { all, shipped };
}
