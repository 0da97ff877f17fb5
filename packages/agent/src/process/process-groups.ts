// Commands run in process groups of their own (Bash, background shells, hooks), so that one signal
// reaches everything a command started. This process kills those groups itself when a command ends,
// times out or is cancelled, and when its conversation ends. When this process dies without doing so
// (SIGKILL, the out-of-memory killer, a crash), a reaper does it: a small bash process of its own,
// started with the first group, that learns every group from a pipe and kills the ones still listed
// when the pipe closes, which it does when this process is gone, however it went.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import { procStatFields } from "./pid-alive.ts";
import type { Writable } from "node:stream";

/** Reads `+<group>` and `-<group>` lines; at end of input kills every group still listed. A sparse
 * indexed array keeps the set (bash 3 has no associative arrays). */
const REAPER_SCRIPT = `trap '' INT TERM HUP
groups=()
while IFS= read -r line; do
  case "$line" in
    +*) groups[\${line#+}]=1 ;;
    -*) unset "groups[\${line#-}]" ;;
  esac
done
for group in "\${!groups[@]}"; do kill -KILL -- "-$group" 2>/dev/null; done
`;

/** After this many new groups, forget the ones that ended by themselves, so that the reaper never
 * holds a group id long enough for the system to give it to someone else. */
const PRUNE_EVERY = 64;

const tracked = new Set<number>();
let reaper: { input: Writable } | undefined;
let sincePrune = 0;

function startReaper(): { input: Writable } | undefined {
  let child: ChildProcess;
  try {
    // Its own group, so that signals to this process's group (a runner being stopped) spare it.
    child = spawn("bash", ["-c", REAPER_SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  } catch {
    return undefined;
  }
  const input = child.stdin!;
  const started = { input };
  const lost = () => {
    if (reaper === started) reaper = undefined;
  };
  child.on("error", lost);
  child.on("exit", lost);
  input.on("error", lost);
  // Neither the reaper nor its pipe may keep this process alive.
  child.unref();
  (input as Writable & { unref?: () => void }).unref?.();
  return started;
}

function tell(line: string): void {
  if (!reaper) {
    if (line.startsWith("-")) return;
    reaper = startReaper();
    if (!reaper) return;
    // A reaper started again (the last one died) learns every group still tracked.
    for (const group of tracked) reaper.input.write(`+${group}\n`);
    return;
  }
  reaper.input.write(`${line}\n`);
}

function prune(): void {
  sincePrune = 0;
  for (const group of tracked) if (!groupAlive(group)) forgetGroup(group);
}

/** Starts `bash -c command` as the leader of a new process group, which the reaper then knows.
 * With `fd3`, the command also has a pipe of its own to write to on file descriptor 3 (stdio[3]). */
export function spawnGroup(
  command: string,
  options: { cwd: string; env?: NodeJS.ProcessEnv | Readonly<Record<string, string>>; stdin?: "pipe" | "ignore"; fd3?: boolean },
): ChildProcess {
  const child = spawn("bash", ["-c", command], {
    cwd: options.cwd,
    ...(options.env && { env: options.env }),
    detached: true,
    stdio: [options.stdin ?? "ignore", "pipe", "pipe", ...(options.fd3 ? ["pipe" as const] : [])],
  });
  if (child.pid !== undefined) trackGroup(child.pid);
  return child;
}

/** Has the reaper know `group`, a process group this process started (spawned with `detached`). */
export function trackGroup(group: number): void {
  if (++sincePrune >= PRUNE_EVERY) prune();
  tracked.add(group);
  tell(`+${group}`);
}

/** Whether any process of the group is still there, not counting the dead that nothing has reaped
 * yet (under an init that does not reap, as in many containers, they stay for good). */
export function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return process.platform !== "linux" || hasLiveMember(group);
}

/** Whether /proc shows a process of `group` that is not a zombie (true when /proc cannot tell). */
function hasLiveMember(group: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    // State, parent, process group; none when it ended while we looked.
    const [state, , pgrp] = procStatFields(entry) ?? [];
    if (Number(pgrp) === group && state !== "Z" && state !== "X") return true;
  }
  return false;
}

/** Signals every process of the group; SIGKILL also stops tracking it. */
export function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // The group is already gone.
  }
  if (signal === "SIGKILL") forgetGroup(group);
}

/** Stops tracking a group that has ended (or been killed). */
export function forgetGroup(group: number): void {
  if (tracked.delete(group)) tell(`-${group}`);
}

/** The groups tracked now (for tests). */
export function trackedGroups(): ReadonlySet<number> {
  return tracked;
}
