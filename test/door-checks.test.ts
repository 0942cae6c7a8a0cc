import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Fences of the flow posts' one door (lib/flow/guard.ts) and of the one body
 * reader (lib/http/body-limits.ts), read from the source: a flow post that
 * checks Origin, tokens or bodies itself, or a handler reading a request body
 * by hand, fails here. Each rule is also shown failing on a planted sample.
 */

const ROOT = join(__dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The door checks only the guard (and the CSRF module that defines the tokens) may make. */
const DOOR_CHECKS = [
  /\bisSameOrigin\b/,
  /\bisValidCsrfToken\b/,
  /\bisStaleTabToken\b/,
  /\bsignOutToken\b/,
  /\bread(Form|Json)Body\b/,
  /\breadBody(Text|Bytes)\b/,
  /\bJSON\.parse\(/,
  /\brequest\.(text|json|formData|arrayBuffer|blob)\(/,
];
const DOOR_FILES = new Set(["lib/flow/guard.ts", "lib/flow/csrf.ts"]);

/** Door checks made in a lib/flow file other than the guard: `file: pattern` each. */
export function doorChecksOutsideGuard(files: Record<string, string>): string[] {
  return Object.entries(files).flatMap(([file, source]) =>
    DOOR_FILES.has(file)
      ? []
      : DOOR_CHECKS.filter((pattern) => pattern.test(source)).map((p) => `${file}: ${p.source}`),
  );
}

/** The body of `function name(` in `source` (up to the first line that closes it), or null. */
function functionBody(source: string, name: string): string | null {
  const start = source.search(new RegExp(`function ${name}\\(`));
  if (start === -1) return null;
  const end = source.indexOf("\n}\n", start);
  return source.slice(start, end === -1 ? undefined : end);
}

/**
 * Whether the handler `name` passes the door first: its first awaited call is
 * guardFlowPost, or a function of the same file whose first awaited call is.
 */
export function passesTheDoorFirst(source: string, name: string): boolean {
  const body = functionBody(source, name);
  const first = body ? /await (\w+)\(/.exec(body)?.[1] : undefined;
  if (first === "guardFlowPost") return true;
  const helper = first ? functionBody(source, first) : null;
  return helper !== null && /await (\w+)\(/.exec(helper)?.[1] === "guardFlowPost";
}

/** Every POST route handled in lib/flow: the route file, the handler's name and its lib file. */
function flowPostRoutes(): { route: string; handler: string; file: string }[] {
  return sourceFiles("app")
    .filter((path) => path.endsWith("route.ts"))
    .flatMap((route) => {
      const source = read(route);
      const post = /export const POST = \w+\((\w+)\)/.exec(source)?.[1];
      if (!post) return [];
      const from = new RegExp(`import \\{[^}]*\\b${post}\\b[^}]*\\} from "@/lib/flow/([\\w-]+)"`);
      const flowModule = from.exec(source)?.[1];
      return flowModule ? [{ route, handler: post, file: `lib/flow/${flowModule}.ts` }] : [];
    });
}

/** Hand-written readers of a request body outside lib/http: `file: line` each. */
export function handWrittenBodyReaders(files: Record<string, string>): string[] {
  const reader = /\b(request|req)\.(text|json|formData|arrayBuffer|blob)\(|\breadBodyText\(/;
  return Object.entries(files).flatMap(([file, source]) =>
    file.startsWith("lib/http/")
      ? []
      : source
          .split("\n")
          .flatMap((line, index) => (reader.test(line) ? [`${file}:${index + 1}`] : [])),
  );
}

const tree = (dir: string) =>
  Object.fromEntries(
    sourceFiles(dir).map((path) => [relative(ROOT, join(ROOT, path)), read(path)]),
  );

describe("one door for the flow's posts", () => {
  it("every POST route handled in lib/flow passes guardFlowPost first", () => {
    const routes = flowPostRoutes();
    // The posts of the flow: sign-in (3), bank (2), key (2), consent, sign-out, cancel.
    expect(routes.map((r) => r.route).sort()).toEqual([
      "app/(flow)/banks/continue/route.ts",
      "app/(flow)/banks/start/route.ts",
      "app/(flow)/consent/approve/route.ts",
      "app/(flow)/login/code/route.ts",
      "app/(flow)/login/link/confirm/route.ts",
      "app/(flow)/login/request/route.ts",
      "app/(flow)/setup/key/route.ts",
      "app/(flow)/setup/start-over/route.ts",
      "app/logout/route.ts",
      "app/oauth/cancel/route.ts",
    ]);
    const bypassing = routes.filter(
      ({ handler, file }) => !passesTheDoorFirst(read(file), handler),
    );
    expect(bypassing).toEqual([]);
  });

  it("lib/flow makes no Origin, token or body check outside the guard", () => {
    expect(doorChecksOutsideGuard(tree("lib/flow"))).toEqual([]);
  });

  it("the fences fail on a handler that checks its own door", () => {
    const ownDoor = `import { isSameOrigin } from "../http/origin";
export async function handleX(request: Request) {
  if (!isSameOrigin(request)) return new Response(null, { status: 403 });
  const form = new URLSearchParams(await request.text());
  return new Response(form.get("a"));
}
`;
    expect(doorChecksOutsideGuard({ "lib/flow/x.ts": ownDoor })).toEqual([
      "lib/flow/x.ts: \\bisSameOrigin\\b",
      "lib/flow/x.ts: \\brequest\\.(text|json|formData|arrayBuffer|blob)\\(",
    ]);
    expect(passesTheDoorFirst(ownDoor, "handleX")).toBe(false);
    const guarded = `export async function handleX(request: Request) {
  const post = await guardFlowPost(request, RULE);
  if (post instanceof Response) return post;
  return await work(post);
}
`;
    expect(passesTheDoorFirst(guarded, "handleX")).toBe(true);
    const late = `export async function handleX(request: Request) {
  const flow = await findBrowserFlow(request);
  const post = await guardFlowPost(request, RULE);
  return post;
}
`;
    expect(passesTheDoorFirst(late, "handleX")).toBe(false);
    const viaHelper = `async function readForm(request: Request) {
  const post = await guardFlowPost(request, RULE);
  return post;
}

export async function handleX(request: Request) {
  const read = await readForm(request);
  return read;
}
`;
    expect(passesTheDoorFirst(viaHelper, "handleX")).toBe(true);
  });
});

describe("one capped body reader", () => {
  it("no handler in lib/ or app/ reads a request body by hand", () => {
    expect(handWrittenBodyReaders({ ...tree("lib"), ...tree("app") })).toEqual([]);
  });

  it("the fence fails on a hand-written reader, and leaves lib/http's own alone", () => {
    expect(
      handWrittenBodyReaders({
        "lib/partners/x.ts": "const a = 1;\nconst body = await request.json();\n",
        "app/x/route.ts": "const text = await readBodyText(request);\n",
        "lib/http/body-limits.ts":
          "return new TextDecoder().decode(await readBodyText(request));\n",
      }),
    ).toEqual(["lib/partners/x.ts:2", "app/x/route.ts:1"]);
  });
});
