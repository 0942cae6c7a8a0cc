import { readFile } from "node:fs/promises";
import path from "node:path";
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
