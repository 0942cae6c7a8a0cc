/**
 * Reading a V8 CPU profile (`node --cpu-prof`): the main thread's busy time
 * within time windows, split into categories by the functions on the stack.
 */

export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  /** Microseconds on the monotonic clock (the one process.hrtime reads). */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Phase {
  name: string;
  /** Microseconds on the monotonic clock. */
  start: number;
  end: number;
  requests: number;
}

export interface PhaseCpu {
  name: string;
  requests: number;
  busyMs: number;
  byCategory: Record<string, number>;
  /** The frames with the most self time, `function url:line`, in ms. */
  top: [string, number][];
}

export type Frame = CpuProfile["nodes"][number]["callFrame"];
/** A category for a sample's stack, leaf first; null: not busy (idle). */
export type Categorize = (stack: Frame[]) => string | null;

/** The service's HTTP server and the edge functions it calls, and Next's middleware runner. */
const EDGE = [
  "/next/dist/server/web/",
  "/scripts/lib/service-server",
  "/scripts/lib/body-guard",
  "/lib/http/edge",
  "/lib/http/security-headers",
  "/lib/http/request-guards",
  "/lib/http/client-ip",
  "/lib/ratelimit/",
  "/node_modules/ioredis/",
];
const EDGE_FUNCTIONS = new Set(["runMiddleware", "handleCatchallMiddlewareRequest"]);
/** Next's request routing: matching the path, before the route's own module runs. */
const ROUTING = ["/next/dist/server/lib/router-utils/", "/next/dist/server/lib/router-server"];

/**
 * Sorts a sample by every function on its stack: the edge when any is edge
 * code (or in one of the build's middleware chunks, `middlewareFiles`), else
 * routing when any is Next's router, else the rest. Work resumed from a
 * promise has lost its callers, so this undercounts the edge and routing.
 */
export function categorizer(middlewareFiles: string[]): Categorize {
  const edgeParts = [...EDGE, ...middlewareFiles];
  return (stack) => {
    const leaf = stack[0];
    if (!leaf || leaf.functionName === "(idle)") return null;
    if (stack.some((frame) => EDGE_FUNCTIONS.has(frame.functionName))) return "edge";
    if (stack.some((frame) => edgeParts.some((part) => frame.url.includes(part)))) return "edge";
    if (stack.some((frame) => ROUTING.some((part) => frame.url.includes(part)))) return "routing";
    return "rest";
  };
}

/** The chunks a build's middleware bundle loads (`R.c("server/chunks/…")`), if it has one. */
export function middlewareChunks(middlewareBundle: string | null): string[] {
  if (middlewareBundle === null) return [];
  return [...middlewareBundle.matchAll(/R\.c\("server\/(chunks\/[^"]+)"\)/g)].map(
    (match) => `/.next/server/${match[1] ?? ""}`,
  );
}

export function cpuByPhase(profile: CpuProfile, phases: Phase[], sort: Categorize): PhaseCpu[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const stackCache = new Map<number, Frame[]>();
  const stackOf = (id: number): Frame[] => {
    const cached = stackCache.get(id);
    if (cached) return cached;
    const stack: Frame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node && node.callFrame.functionName !== "(root)") stack.push(node.callFrame);
    }
    stackCache.set(id, stack);
    return stack;
  };

  const results = phases.map((phase) => ({
    name: phase.name,
    requests: phase.requests,
    busyMs: 0,
    byCategory: {} as Record<string, number>,
    self: new Map<string, number>(),
  }));
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    time += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one.
    const weightMs = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const index = phases.findIndex((phase) => time >= phase.start && time < phase.end);
    const result = results[index];
    if (!result) continue;
    const stack = stackOf(profile.samples[i] ?? 0);
    const category = sort(stack);
    if (category === null) continue;
    result.busyMs += weightMs;
    result.byCategory[category] = (result.byCategory[category] ?? 0) + weightMs;
    const leaf = stack[0];
    const key = leaf ? `${leaf.functionName || "(anonymous)"} ${leaf.url}:${leaf.lineNumber}` : "?";
    result.self.set(key, (result.self.get(key) ?? 0) + weightMs);
  }
  return results.map(({ self, ...result }) => ({
    ...result,
    top: [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25),
  }));
}
