import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Where a server's CPU went: sums the self time of V8 CPU profiles
 * (`node --cpu-prof`, which `npm run bench -- --cpu-prof` turns on for the
 * service) by the package each function belongs to, for each timed
 * measurement of the run (the windows the benchmark wrote next to the
 * profiles, on the same monotonic clock), in milliseconds per request.
 *
 *   tsx scripts/bench/profile-summary.ts [.data/cpu-prof] [--top=20]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface Window {
  name: string;
  requests: number;
  startUs: number;
  endUs: number;
}

const GROUPS: [string, RegExp][] = [
  ["Prisma", /@prisma\/|\/lib\/db\/generated\//],
  ["pg driver", /node_modules\/(pg|pg-protocol|pg-pool|pg-types|pgpass)\//],
  ["Next.js", /node_modules\/next\//],
  ["React", /node_modules\/(react|react-dom|scheduler)\//],
  ["zod", /node_modules\/zod\//],
  ["Redis client", /node_modules\/(ioredis|@upstash)\//],
  ["Other packages", /node_modules\//],
  ["The service's code", /\.next\/|\/lib\/|\/app\/|\/scripts\//],
  ["Node.js internals", /^node:|^internal\//],
];

function groupOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) {
    if (functionName === "(idle)") return "(idle)";
    if (functionName === "(garbage collector)") return "Garbage collection";
    if (functionName === "(program)") return "V8 and native";
    return "Native builtins";
  }
  return GROUPS.find(([, pattern]) => pattern.test(url))?.[0] ?? "Other";
}

/** By package, or (`byFunction`) by function and file, for the top list. */
export function summarize(
  profiles: Profile[],
  window?: Window,
  byFunction = false,
): Map<string, number> {
  const totals = new Map<string, number>();
  for (const profile of profiles) {
    const groups = new Map(
      profile.nodes.map((node) => [
        node.id,
        byFunction
          ? `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/^.*\/(node_modules|\.next)\//, "$1/")}`
          : groupOf(node),
      ]),
    );
    let at = profile.startTime;
    profile.samples.forEach((id, index) => {
      const micros = profile.timeDeltas[index] ?? 0;
      at += micros;
      if (window && (at < window.startUs || at > window.endUs)) return;
      const group = groups.get(id) ?? "Other";
      totals.set(group, (totals.get(group) ?? 0) + micros / 1000);
    });
  }
  totals.delete("(idle)");
  return totals;
}

function print(
  title: string,
  totals: Map<string, number>,
  requests: number | null,
  limit = Infinity,
) {
  const busy = [...totals.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(`\n${title}: ${busy.toFixed(0)} ms busy${requests ? `, ${requests} requests` : ""}`);
  console.log(`| Part | CPU ms | Share |${requests ? " ms per request |" : ""}`);
  console.log(`|---|--:|--:|${requests ? "--:|" : ""}`);
  for (const [group, ms] of [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    const share = `${((ms / busy) * 100).toFixed(1)} %`;
    const perRequest = requests ? ` ${(ms / requests).toFixed(2)} |` : "";
    console.log(`| ${group} | ${ms.toFixed(0)} | ${share} |${perRequest}`);
  }
}

const top = Number(process.argv.find((arg) => arg.startsWith("--top="))?.slice(6) ?? "0");
const directory = process.argv.slice(2).find((arg) => !arg.startsWith("--")) ?? ".data/cpu-prof";
const files = readdirSync(directory).filter((name) => name.endsWith(".cpuprofile"));
const profiles = files.map(
  (name) => JSON.parse(readFileSync(path.join(directory, name), "utf8")) as Profile,
);
const windowsFile = path.join(directory, "windows.json");
const windows = existsSync(windowsFile)
  ? (JSON.parse(readFileSync(windowsFile, "utf8")) as Window[])
  : [];
console.log(`${files.length} profile(s) in ${directory}`);
print("Whole run", summarize(profiles), null);
for (const window of windows) {
  print(window.name, summarize(profiles, window), window.requests);
  if (top > 0)
    print("  its busiest functions", summarize(profiles, window, true), window.requests, top);
}
