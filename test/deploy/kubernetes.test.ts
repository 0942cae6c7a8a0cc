import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { readImageStart } from "../../scripts/image/dockerfile";
import { containers, podTemplate, renderKustomization, type Manifest } from "./kustomize";

/**
 * deploy/kubernetes, checked offline: the kustomization rendered as `kubectl apply -k` would
 * (./kustomize.ts), every object validated against the Kubernetes API's own schemas (the
 * OpenAPI definitions compiled to Ajv validators by the kubernetes-models package, pinned),
 * then the rules the operator guide promises: both probes on routes the service has, a
 * non-root user that is the image's, a read-only root with a volume for each path the
 * service writes, no privilege escalation, no capability, a drain before SIGTERM, bounded
 * memory, the migrations as compose runs them, and no real secret anywhere.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const BASE = path.join(ROOT, "deploy/kubernetes");
const rendered = renderKustomization(BASE);
const byKind = (kind: string) => rendered.filter((manifest) => manifest.kind === kind);
const only = (kind: string) => {
  const [manifest, ...more] = byKind(kind);
  expect(manifest, kind).toBeDefined();
  expect(more, kind).toEqual([]);
  return manifest!;
};

type Json = Record<string, unknown>;
const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((current, key) => (current as Json | undefined)?.[key], value);

/** Validates against the schema of the object's apiVersion and kind; throws with each error. */
async function validateAgainstSchema(manifest: Manifest): Promise<void> {
  const model = (await import(
    `kubernetes-models/${manifest.apiVersion}/${manifest.kind}`
  )) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = model[manifest.kind];
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(structuredClone(manifest)).validate();
}

/** Bytes of a Kubernetes memory quantity (Mi, Gi, M, G or plain). */
function bytes(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(quantity);
  if (!match) throw new Error(`not a memory quantity: ${quantity}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, k: 1e3, M: 1e6, G: 1e9 }[match[2] ?? ""];
  return Number(match[1]) * (unit ?? 1);
}

const scratch: string[] = [];
afterAll(() => {
  for (const directory of scratch) rmSync(directory, { recursive: true, force: true });
});
function kustomizationIn(files: Record<string, string>): string {
  const directory = mkdtempSync(path.join(tmpdir(), "kustomize-"));
  scratch.push(directory);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(directory, name), text);
  return directory;
}

describe("the kustomize renderer", () => {
  const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, labels: { tier: front } }
spec:
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - { name: web, image: "registry.local:5000/web:1.0" }
        - { name: side, image: other }
`;

  it("applies namespace, labels and images as kustomize does", () => {
    const directory = kustomizationIn({
      "kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: shop
resources: [web.yaml]
labels:
  - pairs: { team: pay }
    includeTemplates: true
  - pairs: { env: prod }
    includeSelectors: true
images:
  - { name: "registry.local:5000/web", newName: mirror/web, digest: "sha256:${"a".repeat(64)}" }
  - { name: other, newTag: "2.1" }
`,
      "web.yaml": DEPLOYMENT,
    });
    const [web] = renderKustomization(directory);
    expect(web?.metadata).toEqual({
      name: "web",
      namespace: "shop",
      labels: { tier: "front", team: "pay", env: "prod" },
    });
    expect(at(web, "spec", "selector", "matchLabels")).toEqual({ app: "web", env: "prod" });
    expect(podTemplate(web!)?.metadata?.labels).toEqual({ app: "web", team: "pay", env: "prod" });
    expect(containers(web!).map((c) => c.image)).toEqual([
      `mirror/web@sha256:${"a".repeat(64)}`,
      "other:2.1",
    ]);
  });

  it("refuses a kustomization field it does not render", () => {
    const directory = kustomizationIn({
      "kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [web.yaml]
patches:
  - path: more.yaml
`,
      "web.yaml": DEPLOYMENT,
    });
    expect(() => renderKustomization(directory)).toThrow(/not rendered here: patches/);
  });
});

describe("deploy/kubernetes", () => {
  it("renders the settings, the migration Job, the Deployment, its Service and disruption budget", () => {
    expect(rendered.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      "ConfigMap/bank-connect-settings",
      "Deployment/bank-connect",
      "Job/bank-connect-migrate",
      "PodDisruptionBudget/bank-connect",
      "Service/bank-connect",
    ]);
    for (const manifest of rendered) {
      expect(manifest.metadata.labels?.["app.kubernetes.io/part-of"]).toBe("bank-connect");
    }
  });

  it("every object, the Secret template too, is valid against the Kubernetes schemas", async () => {
    const template = parse(
      readFileSync(path.join(BASE, "secret.template.yaml"), "utf8"),
    ) as Manifest;
    for (const manifest of [...rendered, template]) {
      await expect(validateAgainstSchema(manifest), manifest.kind).resolves.toBeUndefined();
    }
    // The validators refuse what the API server refuses.
    const broken = structuredClone(only("Deployment"));
    (broken.spec as Json).replicas = "two";
    await expect(validateAgainstSchema(broken)).rejects.toThrow(/replicas must be integer/);
    const noContainers = structuredClone(only("Job"));
    delete (podTemplate(noContainers)!.spec as Json).containers;
    await expect(validateAgainstSchema(noContainers)).rejects.toThrow(/containers/);
  });

  it("liveness asks /livez, readiness /readyz: both routes of the service", () => {
    const [server] = containers(only("Deployment"));
    const path_ = (probe: string) => at(server, probe, "httpGet", "path") as string;
    expect(path_("livenessProbe")).toBe("/livez");
    expect(path_("readinessProbe")).toBe("/readyz");
    expect(path_("startupProbe")).toBe("/livez");
    for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
      expect(existsSync(path.join(ROOT, "app", path_(probe), "route.ts")), probe).toBe(true);
      const port = at(server, probe, "httpGet", "port");
      expect((server?.ports as Json[]).map((p) => p.name)).toContain(port);
    }
  });

  it("every pod runs as the image's unprivileged user on a read-only root, without escalation or capabilities", async () => {
    const image = await readImageStart();
    for (const workload of [only("Deployment"), only("Job")]) {
      const pod = podTemplate(workload)!.spec!;
      expect(at(pod, "securityContext", "runAsNonRoot"), workload.kind).toBe(true);
      expect(at(pod, "securityContext", "runAsUser"), workload.kind).toBe(image.uid);
      expect(at(pod, "securityContext", "runAsGroup"), workload.kind).toBe(image.gid);
      expect(pod.automountServiceAccountToken, workload.kind).toBe(false);
      for (const container of containers(workload)) {
        const context = container.securityContext as Json;
        expect(context.runAsNonRoot).toBe(true);
        expect(context.runAsUser).toBe(image.uid);
        expect(context.readOnlyRootFilesystem).toBe(true);
        expect(context.allowPrivilegeEscalation).toBe(false);
        expect(at(context, "capabilities", "drop")).toEqual(["ALL"]);
      }
    }
  });

  it("what the service writes is an emptyDir: tsx's /tmp and Next's cache, as in compose.yaml", () => {
    const compose = parse(readFileSync(path.join(ROOT, "compose.yaml"), "utf8"), {
      merge: true,
    }) as { services: Record<string, { tmpfs?: string[] }> };
    const writable = (service: string) =>
      (compose.services[service]?.tmpfs ?? []).map((mount) => mount.split(":")[0]).sort();
    for (const [workload, service] of [
      [only("Deployment"), "app"],
      [only("Job"), "migrate"],
    ] as const) {
      const pod = podTemplate(workload)!.spec!;
      const volumes = new Map((pod.volumes as Json[]).map((v) => [v.name as string, v]));
      const [container] = containers(workload);
      const mounts = container!.volumeMounts as Json[];
      expect(mounts.map((m) => m.mountPath).sort()).toEqual(writable(service));
      for (const mount of mounts) {
        expect(volumes.get(mount.name as string)?.emptyDir, `${mount.mountPath}`).toBeDefined();
      }
    }
  });

  it("a pod leaves the Service before SIGTERM and has the time to finish", () => {
    const deployment = only("Deployment");
    const [server] = containers(deployment);
    const command = at(server, "lifecycle", "preStop", "exec", "command") as string[];
    expect(command?.[0]).toBe("sleep");
    const pause = Number(command[1]);
    expect(pause).toBeGreaterThanOrEqual(5);
    const grace = at(podTemplate(deployment)?.spec, "terminationGracePeriodSeconds") as number;
    expect(grace).toBeGreaterThanOrEqual(pause + 20);
    // The launcher stops the server on SIGTERM (scripts/launch.ts).
    expect(readFileSync(path.join(ROOT, "scripts/launch.ts"), "utf8")).toMatch(
      /process\.on\("SIGTERM"/,
    );
  });

  it("memory is requested and bounded between 256 and 512 MiB; no image floats", () => {
    for (const workload of [only("Deployment"), only("Job")]) {
      for (const container of containers(workload)) {
        const request = bytes(at(container, "resources", "requests", "memory") as string);
        const limit = bytes(at(container, "resources", "limits", "memory") as string);
        expect(request).toBeGreaterThanOrEqual(256 * 2 ** 20);
        expect(limit).toBeLessThanOrEqual(512 * 2 ** 20);
        expect(request).toBeLessThanOrEqual(limit);
        expect(at(container, "resources", "requests", "cpu")).toBeDefined();
        const image = container.image as string;
        expect(image).toMatch(/(:[\w][\w.-]*|@sha256:[0-9a-f]{64})$/);
        expect(image).not.toMatch(/:latest($|@)/);
      }
    }
  });

  it("the migration Job runs compose's migrate command on the Deployment's image and settings", () => {
    const compose = parse(readFileSync(path.join(ROOT, "compose.yaml"), "utf8"), {
      merge: true,
    }) as { services: Record<string, { command?: string[] }> };
    const job = only("Job");
    const [migrate] = containers(job);
    const [server] = containers(only("Deployment"));
    expect(migrate?.command).toEqual(compose.services.migrate?.command);
    expect(migrate?.image).toBe(server?.image);
    expect(migrate?.envFrom).toEqual(server?.envFrom);
    expect(at(podTemplate(job)?.spec, "restartPolicy")).toBe("Never");
  });

  it("the Service and the disruption budget select exactly the Deployment's pods", () => {
    const deployment = only("Deployment");
    const labels = podTemplate(deployment)?.metadata?.labels as Record<string, string>;
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    const service = only("Service");
    const budget = only("PodDisruptionBudget");
    expect(selects(at(service, "spec", "selector") as Record<string, string>)).toBe(true);
    expect(selects(at(budget, "spec", "selector", "matchLabels") as Record<string, string>)).toBe(
      true,
    );
    expect(at(deployment, "spec", "selector", "matchLabels")).toEqual(
      at(budget, "spec", "selector", "matchLabels"),
    );
    // The migration Job's pod is not one of them.
    const jobLabels = podTemplate(only("Job"))?.metadata?.labels as Record<string, string>;
    expect(jobLabels["app.kubernetes.io/component"]).not.toBe(
      labels["app.kubernetes.io/component"],
    );
    const [server] = containers(deployment);
    expect((server?.ports as Json[]).map((p) => p.name)).toContain(
      (at(service, "spec", "ports") as Json[])[0]?.targetPort,
    );
    expect(at(deployment, "spec", "replicas")).toBeGreaterThan(
      at(budget, "spec", "maxUnavailable") as number,
    );
  });

  it("the Secret is a template outside the base, its values placeholders, its name the one the pods read", () => {
    const template = parse(
      readFileSync(path.join(BASE, "secret.template.yaml"), "utf8"),
    ) as Manifest;
    expect(byKind("Secret")).toEqual([]);
    const values = template.stringData as Record<string, string>;
    expect(Object.keys(values)).toEqual(expect.arrayContaining(["DATABASE_URL", "SECRET_KEY"]));
    for (const [key, value] of Object.entries(values)) expect(value, key).toMatch(/^<[a-z0-9-]+>$/);
    const [server] = containers(only("Deployment"));
    const secretNames = (server?.envFrom as Json[])
      .map((from) => at(from, "secretRef", "name"))
      .filter(Boolean);
    expect(secretNames).toEqual([template.metadata.name]);
    // Settings in the ConfigMap are never secrets.
    const settings = Object.keys(at(only("ConfigMap"), "data") as Json);
    expect(settings.filter((key) => key in values)).toEqual([]);
    expect(
      settings.filter((key) => /SECRET|PASSWORD|TOKEN|PRIVATE_KEY|DATABASE_URL/.test(key)),
    ).toEqual([]);
  });
});
