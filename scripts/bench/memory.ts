import { readdirSync, readFileSync } from "node:fs";

/**
 * Resident memory of a process and everything it started (Linux /proc): the
 * service is a launcher and whatever it runs beside it, and what a host or an
 * orchestrator's memory limit sees is the sum. Elsewhere it is null.
 */

export interface TreeMemory {
  /** Sum of VmRSS over the tree, in bytes. */
  rssBytes: number;
  /** RSS per process of the tree, by pid, with its command name. */
  processes: { pid: number; name: string; rssBytes: number }[];
}

function parentOf(pid: string): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself hold spaces or parentheses.
    return Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function statusOf(pid: number): { name: string; rssBytes: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const name = /^Name:\s*(.*)$/m.exec(text)?.[1] ?? "?";
    const kib = Number(/^VmRSS:\s*(\d+) kB$/m.exec(text)?.[1] ?? 0);
    return { name, rssBytes: kib * 1024 };
  } catch {
    return null;
  }
}

/** The resident memory of `rootPid` and its descendants, or null without /proc. */
export function processTreeMemory(rootPid: number | undefined): TreeMemory | null {
  if (!rootPid) return null;
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const children = new Map<number, number[]>();
  for (const pid of entries) {
    const parent = parentOf(pid);
    if (parent === null) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(pid)]);
  }
  const processes: TreeMemory["processes"] = [];
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    const status = statusOf(pid);
    if (status) processes.push({ pid, ...status });
    pending.push(...(children.get(pid) ?? []));
  }
  if (processes.length === 0) return null;
  return { rssBytes: processes.reduce((sum, entry) => sum + entry.rssBytes, 0), processes };
}

/** Samples a process tree's memory every `intervalMs` and keeps the highest sum. */
export function watchPeakMemory(rootPid: number | undefined, intervalMs = 500) {
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, processTreeMemory(rootPid)?.rssBytes ?? 0);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    /** The highest sum seen so far, in bytes. */
    peak: () => (sample(), peak),
    stop: () => clearInterval(timer),
  };
}

export const mebibytes = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/** "312 MiB in 2 processes (node 45 MiB, node 267 MiB)" */
export function describeMemory(memory: TreeMemory | null): string {
  if (!memory) return "not measured (no /proc)";
  const parts = memory.processes.map((entry) => `${entry.name} ${mebibytes(entry.rssBytes)}`);
  return `${mebibytes(memory.rssBytes)} in ${memory.processes.length} process${memory.processes.length === 1 ? "" : "es"} (${parts.join(", ")})`;
}
