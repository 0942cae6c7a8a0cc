import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time of a process and everything it started (Linux /proc): the
 * launcher of a measured server starts the server as its child, so the
 * whole tree is what one request costs. Read before and after a timed run,
 * it gives CPU milliseconds per request, a figure that moves far less than
 * requests/s on a machine shared with other work. Elsewhere it is null.
 */

/** Clock ticks per second of /proc's times (USER_HZ), 100 on every Linux platform Node runs on. */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime, in ticks. */
  ticks: number;
}

function readStat(pid: string): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself hold spaces or parentheses.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return {
      pid: Number(pid),
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
    };
  } catch {
    return null;
  }
}

/**
 * CPU used so far by `rootPid` and each of its descendants, in milliseconds
 * by process id, or null without /proc.
 */
export function processTreeCpu(rootPid: number | undefined): Map<number, number> | null {
  if (rootPid === undefined) return null;
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const stats = entries.map(readStat).filter((stat): stat is ProcStat => stat !== null);
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) {
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(stat);
    children.set(stat.ppid, siblings);
  }
  const root = stats.find((stat) => stat.pid === rootPid);
  if (!root) return null;
  const tree = new Map<number, number>();
  const queue = [root];
  for (let current = queue.pop(); current; current = queue.pop()) {
    tree.set(current.pid, (current.ticks * 1000) / TICKS_PER_SECOND);
    queue.push(...(children.get(current.pid) ?? []));
  }
  return tree;
}

/**
 * The CPU a process tree used between two readings: the growth of each
 * process seen at both, and all of each process started since. A process
 * that ended in between (a database worker) takes its time with it, which a
 * difference of the two sums would count as negative.
 */
export function cpuUsedBetween(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, ms] of after) used += ms - (before.get(pid) ?? 0);
  return used;
}
