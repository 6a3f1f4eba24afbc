/**
 * A process's descendants, read from /proc (each task's `children` file), nearest first. The
 * sandbox needs them because bwrap does not pass signals on: its outer process only waits, and
 * the command runs under a second bwrap (pid 1 of the sandbox's pid namespace). Empty where
 * /proc says nothing (the process is gone, or the kernel lacks CONFIG_PROC_CHILDREN).
 */
import { readdirSync, readFileSync } from "node:fs";

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" "))
        if (c.trim() !== "") out.push(Number(c));
    } catch {
      // The task ended meanwhile.
    }
  }
  return out;
}

/** Every descendant of `pid`, breadth first (so `[0]` is a direct child when there is one). */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const queue = childrenOf(pid);
  while (queue.length > 0) {
    const p = queue.shift() as number;
    if (found.includes(p)) continue;
    found.push(p);
    queue.push(...childrenOf(p));
  }
  return found;
}

/** Send `sig` to each pid, ignoring those already gone. */
export function signalEach(pids: readonly number[], sig: "SIGTERM" | "SIGKILL"): void {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      // Already gone.
    }
  }
}
