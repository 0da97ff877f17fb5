// Commands started by Bash with run_in_background. Each runs in its own process group, so that a
// kill reaches everything it started; its output waits in bounded buffers until BashOutput reads it.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import { forgetGroup, groupAlive, signalGroup as signalProcessGroup, spawnGroup } from "../../process/process-groups.ts";
import { ownShell, shellsChanged } from "./shells-watch.ts";

export type ShellStatus = "running" | "completed" | "failed" | "killed";

/** Output not yet read, at most `capacity` characters: the oldest is dropped first. */
export type UnreadOutput = { push(chunk: Buffer): void; take(): { text: string; dropped: number } };

export type BackgroundShell = {
  readonly id: string;
  readonly command: string;
  readonly startedAt: Date;
  status: ShellStatus;
  exitCode: number | null;
  /** When its main process ended, once it has. */
  endedAt?: Date;
  /** Why the command could not run, when it could not. */
  error?: string;
  readonly stdout: UnreadOutput;
  readonly stderr: UnreadOutput;
  /** Settles when the shell's main process has ended. */
  readonly exited: Promise<void>;
  readonly child: ChildProcess;
  /** Whether something (the shell, or a process it left behind) still holds its output open. */
  outputOpen: boolean;
  /** Settles when its output is closed (never, while a process it left behind holds it open). */
  readonly outputClosed: Promise<void>;
};

/** Finished shells kept, with their unread output (up to two buffers each), when a new one starts;
 * older finished ones are forgotten, so that a long conversation's memory stays bounded. */
export const KEPT_FINISHED_SHELLS = 32;

/** How long a killed shell has to end after SIGTERM before it gets SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** How long disposal waits for killed shells to be reaped. */
const DISPOSE_WAIT_MS = 5_000;

export function createUnreadOutput(capacity: number): UnreadOutput {
  const decoder = new StringDecoder("utf8");
  let parts: string[] = [];
  let size = 0;
  let dropped = 0;
  return {
    push(chunk) {
      const text = decoder.write(chunk);
      if (text === "") return;
      parts.push(text);
      size += text.length;
      while (size > capacity && parts.length > 0) {
        const excess = size - capacity;
        if (parts[0].length <= excess) {
          size -= parts[0].length;
          dropped += parts.shift()!.length;
        } else {
          parts[0] = parts[0].slice(excess);
          size -= excess;
          dropped += excess;
        }
      }
    },
    take() {
      const result = { text: parts.join(""), dropped };
      parts = [];
      size = 0;
      dropped = 0;
      return result;
    },
  };
}

/** Starts `command` with `bash -c` in `cwd` (with `env`, default this process's environment) and
 * registers it under a new id. `launch`: the command line actually run, when it is not `command`
 * itself (a command wrapped in the sandbox); `onExit` hears when the shell's main process ended. */
export function startShell(
  shells: Map<string, BackgroundShell>,
  command: string,
  cwd: string,
  outputCapacity: number,
  env?: Readonly<Record<string, string>>,
  options: { launch?: string; onExit?: () => void } = {},
): BackgroundShell {
  const child = spawnGroup(options.launch ?? command, { cwd, ...(env && { env }) });
  return adoptShell(shells, command, child, cwd, outputCapacity, options.onExit ? { onExit: options.onExit } : {});
}

/** Registers `child`, a command already running in a process group of its own (spawnGroup), as a
 * background shell under a new id: a foreground Bash call moved to the background keeps its
 * process. `output`: what it printed before, kept for BashOutput; `startedAt`: when it started.
 * The caller has stopped listening to the child; its output from now on goes to the shell. */
export function adoptShell(
  shells: Map<string, BackgroundShell>,
  command: string,
  child: ChildProcess,
  cwd: string,
  outputCapacity: number,
  options: { output?: string; startedAt?: Date; onExit?: () => void } = {},
): BackgroundShell {
  forgetOldFinished(shells);
  let id = randomBytes(3).toString("hex");
  while (shells.has(id)) id = randomBytes(3).toString("hex");
  let resolveExited!: () => void;
  let resolveClosed!: () => void;
  const markExited = () => {
    resolveExited();
    options.onExit?.();
    shellsChanged(shell);
  };
  const shell: BackgroundShell = {
    id,
    command,
    startedAt: options.startedAt ?? new Date(),
    status: "running",
    exitCode: null,
    stdout: createUnreadOutput(outputCapacity),
    stderr: createUnreadOutput(outputCapacity),
    exited: new Promise((resolve) => (resolveExited = resolve)),
    child,
    outputOpen: true,
    outputClosed: new Promise((resolve) => (resolveClosed = resolve)),
  };
  if (options.output) shell.stdout.push(Buffer.from(options.output));
  child.stdout?.on("data", (chunk: Buffer) => shell.stdout.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => shell.stderr.push(chunk));
  child.on("error", (error) => {
    if (shell.status === "running") shell.status = "failed";
    shell.error = `Cannot run the command in ${cwd}: ${error.message}`;
    shell.endedAt ??= new Date();
    shell.outputOpen = false;
    resolveClosed();
    markExited();
  });
  child.on("exit", (code) => {
    shell.exitCode = code;
    shell.endedAt = new Date();
    if (shell.status === "running") shell.status = code === 0 ? "completed" : "failed";
    markExited();
  });
  child.on("close", () => {
    shell.outputOpen = false;
    resolveClosed();
    if (child.pid !== undefined && !groupAlive(child.pid)) forgetGroup(child.pid);
  });
  shells.set(id, shell);
  ownShell(shell, shells);
  return shell;
}

function forgetOldFinished(shells: Map<string, BackgroundShell>): void {
  const finished = [...shells.values()].filter((shell) => shell.status !== "running" && !shell.outputOpen);
  for (const shell of finished.slice(0, Math.max(0, finished.length - KEPT_FINISHED_SHELLS))) shells.delete(shell.id);
}

/** Ends a shell and everything it started: SIGTERM to its process group, then SIGKILL to whatever
 * is left after a grace period. "killed": the shell was running; "leftovers": it had ended, but
 * processes it started in the background (a server started with `&`) had not; false: nothing of
 * it was running. */
export function killShell(shell: BackgroundShell): "killed" | "leftovers" | false {
  const pid = shell.child.pid;
  if (shell.status !== "running") {
    // Its group, not its output: the pipes of a shell just ended may take a moment to close.
    if (pid === undefined || !groupAlive(pid)) return false;
    stopGroup(shell);
    return "leftovers";
  }
  shell.status = "killed";
  stopGroup(shell);
  shellsChanged(shell);
  return "killed";
}

function stopGroup(shell: BackgroundShell): void {
  signalGroup(shell, "SIGTERM");
  const timer = setTimeout(() => {
    const leaderAlive = shell.child.exitCode === null && shell.child.signalCode === null;
    const pid = shell.child.pid;
    if (leaderAlive || shell.outputOpen || (pid !== undefined && groupAlive(pid))) signalGroup(shell, "SIGKILL");
  }, KILL_GRACE_MS);
  timer.unref();
}

/** SIGKILLs every shell that is running or left processes behind, then waits a bounded time for the
 * shells to end. */
export async function killAllShells(shells: ReadonlyMap<string, BackgroundShell>): Promise<void> {
  const waiting: Promise<void>[] = [];
  for (const shell of shells.values()) {
    const pid = shell.child.pid;
    if (shell.status !== "running" && !shell.outputOpen && (pid === undefined || !groupAlive(pid))) continue;
    if (shell.status === "running") shell.status = "killed";
    signalGroup(shell, "SIGKILL");
    waiting.push(shell.exited);
  }
  if (waiting.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(waiting), new Promise((resolve) => (timer = setTimeout(resolve, DISPOSE_WAIT_MS)))]);
  clearTimeout(timer);
}

function signalGroup(shell: BackgroundShell, signal: NodeJS.Signals): void {
  if (shell.child.pid !== undefined) signalProcessGroup(shell.child.pid, signal);
}
