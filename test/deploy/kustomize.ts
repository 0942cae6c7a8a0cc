import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

/**
 * Renders a kustomization the way `kustomize build` (and `kubectl apply -k`) does, for the
 * fields deploy/kubernetes uses: resources (files and folders with their own
 * kustomization), namespace, labels (with includeSelectors and includeTemplates) and images.
 * Any other field is refused rather than ignored, so a base that grows a field this does not
 * render fails its test instead of being checked half. Kustomize itself ships as a Go
 * binary, not on npm; this keeps the check offline.
 */

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface LabelEntry {
  pairs: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
}

interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  namespace?: string;
  labels?: LabelEntry[];
  images?: ImageEntry[];
}

const RENDERED = new Set(["apiVersion", "kind", "resources", "namespace", "labels", "images"]);
const CLUSTER_WIDE = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "PriorityClass",
  "StorageClass",
]);
const WITH_POD_TEMPLATE = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"]);

type Json = Record<string, unknown>;
const object = (value: unknown): Json | undefined =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;

/** The pod template's metadata and spec of a workload, or the Pod's own. */
export function podTemplate(manifest: Manifest): { metadata?: Json; spec?: Json } | undefined {
  const spec = object(manifest.spec);
  if (manifest.kind === "Pod") return { metadata: manifest.metadata, spec };
  if (WITH_POD_TEMPLATE.has(manifest.kind)) {
    const template = object(spec?.template);
    return template && { metadata: object(template.metadata), spec: object(template.spec) };
  }
  if (manifest.kind === "CronJob") {
    const template = object(object(object(spec?.jobTemplate)?.spec)?.template);
    return template && { metadata: object(template.metadata), spec: object(template.spec) };
  }
  return undefined;
}

/** Every container of a manifest's pod spec (init containers too). */
export function containers(manifest: Manifest): Json[] {
  const spec = podTemplate(manifest)?.spec;
  return [spec?.initContainers, spec?.containers].flatMap((list) =>
    Array.isArray(list) ? (list as Json[]) : [],
  );
}

function readDocuments(file: string): Manifest[] {
  const documents = parseAllDocuments(readFileSync(file, "utf8"));
  return documents.flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
    const value = document.toJS() as Manifest | null;
    return value ? [value] : [];
  });
}

function addLabels(manifest: Manifest, entry: LabelEntry) {
  manifest.metadata.labels = { ...manifest.metadata.labels, ...entry.pairs };
  const template = podTemplate(manifest);
  if ((entry.includeTemplates || entry.includeSelectors) && template?.metadata) {
    template.metadata.labels = { ...object(template.metadata.labels), ...entry.pairs };
  }
  if (!entry.includeSelectors) return;
  const spec = object(manifest.spec);
  if (manifest.kind === "Service" && spec) {
    spec.selector = { ...object(spec.selector), ...entry.pairs };
    return;
  }
  const selector = object(spec?.selector);
  if (selector) selector.matchLabels = { ...object(selector.matchLabels), ...entry.pairs };
}

/** Splits an image reference into its name and what follows (":tag", "@digest" or both). */
function splitImage(image: string): { name: string; rest: string } {
  const at = image.indexOf("@");
  const beforeDigest = at === -1 ? image : image.slice(0, at);
  const colon = beforeDigest.lastIndexOf(":");
  const end = colon > beforeDigest.lastIndexOf("/") ? colon : at === -1 ? image.length : at;
  return { name: image.slice(0, end), rest: image.slice(end) };
}

function setImage(container: Json, entry: ImageEntry) {
  if (typeof container.image !== "string") return;
  const { name, rest } = splitImage(container.image);
  if (name !== entry.name) return;
  const suffix = entry.digest ? `@${entry.digest}` : entry.newTag ? `:${entry.newTag}` : rest;
  container.image = `${entry.newName ?? name}${suffix}`;
}

export function renderKustomization(directory: string): Manifest[] {
  const file = path.join(directory, "kustomization.yaml");
  const kustomization = readDocuments(file)[0] as unknown as Kustomization;
  if (
    kustomization.apiVersion !== "kustomize.config.k8s.io/v1beta1" ||
    kustomization.kind !== "Kustomization"
  ) {
    throw new Error(`${file} is not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  }
  const unknown = Object.keys(kustomization).filter((key) => !RENDERED.has(key));
  if (unknown.length > 0) throw new Error(`${file}: not rendered here: ${unknown.join(", ")}`);

  const manifests = (kustomization.resources ?? []).flatMap((resource) => {
    const at = path.join(directory, resource);
    if (existsSync(path.join(at, "kustomization.yaml"))) return renderKustomization(at);
    return readDocuments(at);
  });
  for (const manifest of manifests) {
    if (kustomization.namespace && !CLUSTER_WIDE.has(manifest.kind)) {
      manifest.metadata.namespace = kustomization.namespace;
    }
    for (const entry of kustomization.labels ?? []) addLabels(manifest, entry);
    for (const entry of kustomization.images ?? []) {
      for (const container of containers(manifest)) setImage(container, entry);
    }
  }
  return manifests;
}
