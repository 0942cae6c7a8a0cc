import type { Answer, FuzzRequest } from "./types";

/** The run's summary and, for each failure, everything needed to send it again. */

export interface Outcome {
  request: FuzzRequest;
  answer: Answer | null;
  problems: string[];
}

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

function table(title: string, map: Map<string, number>): string {
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const width = Math.max(...rows.map(([k]) => k.length), 10);
  return [
    `${title}:`,
    ...rows.map(([k, v]) => `  ${k.padEnd(width)} ${String(v).padStart(6)}`),
  ].join("\n");
}

const printable = (text: string) =>
  text.replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

export function describeFailure(outcome: Outcome): string {
  const { request, answer, problems } = outcome;
  const headers = Object.entries(request.headers)
    .map(
      ([k, v]) =>
        `    ${k}: ${printable(v.length > 200 ? `${v.slice(0, 200)}… (${v.length} chars)` : v)}`,
    )
    .join("\n");
  const body = request.body
    ? `${printable(request.body.subarray(0, 200).toString("latin1"))}${request.body.length > 200 ? `… (${request.body.length} bytes)` : ""}`
    : "(none)";
  const path =
    request.path.length > 300
      ? `${request.path.slice(0, 300)}… (${request.path.length} chars)`
      : request.path;
  const answered = answer
    ? `${answer.status} ${answer.headers["content-type"] ?? ""}\n    ${printable(answer.body.subarray(0, 300).toString("utf8"))}`
    : "no answer";
  return [
    `✗ #${request.index} (--seed ${request.seed}) ${request.endpoint.name} [${request.kind}]`,
    `  ${request.method} ${printable(path)}`,
    headers,
    `  body: ${body}`,
    `  answer: ${answered}`,
    ...problems.map((p) => `  → ${p}`),
  ].join("\n");
}

export function summarize(outcomes: Outcome[]): string {
  const perEndpoint = new Map<string, number>();
  const perKind = new Map<string, number>();
  const statuses = new Map<string, number>();
  for (const { request, answer } of outcomes) {
    count(perEndpoint, request.endpoint.name);
    count(perKind, request.kind);
    count(statuses, answer ? String(answer.status) : "no answer");
  }
  return [
    table("requests per endpoint", perEndpoint),
    table("requests per malformation", perKind),
    table("statuses", statuses),
  ].join("\n\n");
}
