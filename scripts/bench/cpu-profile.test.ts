import { describe, expect, it } from "vitest";
import { categorizer, cpuByPhase, middlewareChunks, type CpuProfile } from "./cpu-profile";

const frame = (functionName: string, url = "") => ({ functionName, url, lineNumber: 1 });

/** root → handle (Next) → { edge (our server), route (the app) }, and idle. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 5] },
    {
      id: 2,
      callFrame: frame("handle", "file:///x/node_modules/next/dist/server/base-server.js"),
      children: [3, 4],
    },
    { id: 3, callFrame: frame("edge", "file:///x/lib/http/edge.ts") },
    { id: 4, callFrame: frame("GET", "file:///x/.next/server/chunks/route.js") },
    { id: 5, callFrame: frame("(idle)") },
  ],
  startTime: 1_000,
  endTime: 9_000,
  // One sample each millisecond: edge, route, route, idle | edge, idle, idle, idle.
  samples: [3, 4, 4, 5, 3, 5, 5, 5],
  timeDeltas: [0, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000],
};

describe("reading a CPU profile", () => {
  it("splits the busy time of each window by the code on the stack, idle left out", () => {
    const [first, second] = cpuByPhase(
      profile,
      [
        { name: "first", start: 1_000, end: 5_000, requests: 3 },
        { name: "second", start: 5_000, end: 9_000, requests: 1 },
      ],
      categorizer([]),
    );
    expect(first).toMatchObject({ busyMs: 3, byCategory: { edge: 1, rest: 2 } });
    expect(second).toMatchObject({ busyMs: 1, byCategory: { edge: 1 } });
    expect(first?.top[0]?.[0]).toContain("GET");
  });

  it("counts a build's middleware chunks as the edge", () => {
    const bundle =
      'var R=require("./chunks/[turbopack]_runtime.js")("server/middleware.js")\nR.c("server/chunks/[root-of-the-server]__abc._.js")\nR.m(1)';
    const chunks = middlewareChunks(bundle);
    expect(chunks).toEqual(["/.next/server/chunks/[root-of-the-server]__abc._.js"]);
    const sort = categorizer(chunks);
    expect(
      sort([frame("x", "file:///app/.next/server/chunks/[root-of-the-server]__abc._.js")]),
    ).toBe("edge");
    expect(sort([frame("(idle)")])).toBeNull();
    expect(middlewareChunks(null)).toEqual([]);
  });
});
