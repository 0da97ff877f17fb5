// Everything a runner's agents start carries the runner's mark in its environment
// (HARNESS_RUNNER_PROCESS: the runner's pid and start time), so that what left the runner's process
// group can still be found once the runner is gone: Claude Code runs each command in a session of
// its own, and a command may put itself in the background. killOrphans ends what a runner that no
// longer runs left behind, whoever looks (the server that noticed the runner die, or the next one).
// Linux only (/proc tells a process's first environment and start time); elsewhere nothing is
// marked and nothing is found.
import { readdirSync, readFileSync } from "node:fs";
import { procStatFields } from "@harness/agent/pid-alive";

export const RUNNER_MARK_ENV = "HARNESS_RUNNER_PROCESS";

/** `<pid>.<start time>` of process `pid`, or undefined when it has ended (a dead process nothing
 * has reaped yet counts as ended: under an init that does not reap, as in many containers, a runner
 * whose server died stays one for good) or /proc cannot tell. The start time (clock ticks since
 * boot, field 22 of proc(5)) tells a process from a later one with the same pid. */
export function processMark(pid: number): string | undefined {
  const [state, ...fields] = procStatFields(pid) ?? [];
  if (state === undefined || state === "Z" || state === "X") return undefined;
  const start = fields[18];
  return start ? `${pid}.${start}` : undefined;
}

/** Marks this process's environment, which its children inherit, as a runner's. */
export function markRunnerProcess(): void {
  const mark = processMark(process.pid);
  if (mark) process.env[RUNNER_MARK_ENV] = mark;
  else delete process.env[RUNNER_MARK_ENV];
}

/** The runner mark in a process's environment as /proc/<pid>/environ gives it. */
function markIn(environ: string): string | undefined {
  const prefix = `${RUNNER_MARK_ENV}=`;
  for (const entry of environ.split("\0")) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return undefined;
}

/** Kills every process marked by a runner that no longer runs, with the process group each one
 * leads (a command's own children stay in its group, unmarked if they cleared their environment);
 * a group it merely belongs to may hold processes of others, and is spared. Processes whose
 * environment cannot be read (another user's) are left alone. Returns how many were killed. */
export function killOrphans(): number {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  const runs = new Map<string, boolean>();
  let killed = 0;
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let mark: string | undefined;
    try {
      mark = markIn(readFileSync(`/proc/${entry}/environ`, "latin1"));
    } catch {
      continue;
    }
    if (!mark) continue;
    let running = runs.get(mark);
    if (running === undefined) {
      running = processMark(Number.parseInt(mark, 10)) === mark;
      runs.set(mark, running);
    }
    if (running) continue;
    const [state, , group] = procStatFields(entry) ?? [];
    if (state === undefined || state === "Z" || state === "X") continue;
    try {
      process.kill(Number(group) === pid ? -pid : pid, "SIGKILL");
      killed++;
    } catch {
      // Ended meanwhile.
    }
  }
  return killed;
}
