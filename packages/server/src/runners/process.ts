// Starting, adopting and stopping runner processes. A runner is started detached (its own process
// group, output to a log file) so that it outlives a server that dies mid-run: the next server
// adopts it by pid and URL and re-attaches to its run. A runner nobody talks to exits by itself
// after HARNESS_RUNNER_IDLE_EXIT_MS.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, readSync, renameSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { newRunnerToken, RUNNER_TOKEN_ENV } from "@harness/runner/token";
import { killOrphans, RUNNER_MARK_ENV } from "@harness/runner/orphans";
import { DEBUG_ENV, DEBUG_FILE_ENV } from "@harness/runner/debug-setting";
import { removeSocketFile, runnerSocketPath, socketPathOf, socketPid } from "@harness/runner/unix-socket";
import { removeDeadSandboxSockets } from "@harness/agent/sandbox-leftovers";
import { z } from "zod";
import { pidAlive } from "@harness/agent/pid-alive";
import { secretHiding, secretValuesOf } from "@harness/llm/hidden-secrets";
import { RUNNER_GC_FLAGS } from "../gc-flags.ts";
import type { ServerLog } from "../log/writer.ts";

const ListeningSchema = z.object({ event: z.literal("listening"), url: z.string().url() });

/** A runner process as it can be found again (by a later server): its pid, a URL it answers at,
 * and its token (absent for runners of versions that had none). */
export type RunnerProcessInfo = { pid: number; url: string; token?: string };

export type ProcessEnd = { how: string; said?: string };

/** "was killed (SIGKILL) …; its last output: …", as messages say how a runner ended. */
export function describeEnd(end: ProcessEnd, when = ""): string {
  return `${end.how}${when}${end.said ? `; its last output: ${end.said}` : ""}`;
}

export type RunnerProcess = {
  url: string;
  pid: number | undefined;
  /** The secret the runner takes requests with (absent for one started without). */
  token?: string;
  /** True until the process exited. */
  alive(): boolean;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** Calls `listener` once the process has exited (at once, in a microtask, if it has); the
   * returned function takes it back. For listeners that come and go while the process lives on
   * (the sessions it serves): a reaction on `exited` would hold each of them until it exits. */
  onExit(listener: () => void): () => void;
  /** How the process ended, for messages (`how`: "was killed (SIGKILL)", "exited (code 1)"; `said`:
   * its last line of output, if any, its secrets hidden), or undefined while it runs. */
  ended(): ProcessEnd | undefined;
  /** Asks it to stop (SIGTERM to its process group), and kills the group if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
};

export function runnerMainPath(): string {
  return join(dirname(fileURLToPath(import.meta.resolve("@harness/runner"))), "..", "bin", "runner.mjs");
}

export type SpawnRunnerOptions = {
  workspace: string;
  env: Record<string, string | undefined>;
  mainPath?: string;
  startTimeoutMs?: number;
  /** Where the runner's stdout and stderr go (appended); its first line there says where it listens. */
  logFile: string;
  /** The runner listens on a Unix socket in this directory (when its path is not too long for one);
   * without it, on a loopback port. */
  socketDir?: string;
  /** The runner exits by itself after this long without a run or a client. */
  idleExitMs?: number;
  /** When set, the runner writes its debug log of the categories of this filter (`harness run
   * --debug`'s; "" for all) to debugFileOf(logFile), appended and set aside as the log is. */
  debug?: string;
  log?: ServerLog;
};

/** Where a runner whose output goes to `logFile` writes its debug log: runner-0.log → runner-0.debug.log. */
export function debugFileOf(logFile: string): string {
  return `${logFile.replace(/\.log$/, "")}.debug.log`;
}

/** Signals the process group of a runner (it leads its own), falling back to the process alone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

let sweep: ReturnType<typeof setImmediate> | undefined;
const sweepTmpDirs = new Set<string>();

/** Clears, in a moment, what runners that are gone left behind: kills what they left running
 * outside their process groups (@harness/runner orphans.ts), then, once those have had a moment to
 * go, removes the socket files their sandboxes left in `tmp` (their temporary directory). Many
 * runners ending at once take one look. */
export function sweepLeftoversSoon(tmp: string): void {
  sweepTmpDirs.add(tmp);
  sweep ??= setImmediate(() => {
    sweep = undefined;
    killOrphans();
    const dirs = [...sweepTmpDirs];
    sweepTmpDirs.clear();
    setTimeout(() => dirs.forEach((dir) => removeDeadSandboxSockets(dir)), 1000).unref();
  });
  sweep.unref();
}

/** The temporary directory of runners started with `env` (os.tmpdir() reads the same variable). */
export function runnersTmpDir(env: Record<string, string | undefined>): string {
  return env.TMPDIR ? resolve(env.TMPDIR) : tmpdir();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A runner's log past this size is set aside (as `<log>.1`, replacing the one before) when the
 * next runner starts with it: runners come and go for as long as the server runs. */
export const MAX_LOG_BYTES = 8 * 1024 * 1024;

/** Moves `file` to `file.1` when it has grown past `maxBytes`. */
function rotateLog(file: string, maxBytes: number): void {
  try {
    if (statSync(file).size > maxBytes) renameSync(file, `${file}.1`);
  } catch {
    // No log yet, or one that cannot be moved: the runner appends to it as before.
  }
}

/** The last line a runner wrote before it died, which says why (its errors are one line each). */
function lastWords(output: string): string {
  const line = output.trimEnd().split("\n").at(-1)?.trim() ?? "";
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}

/** Removes the sockets that runners killed before they could clean up left in `dir`. */
export function removeDeadSockets(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = socketPid(name);
    if (pid !== undefined && !pidAlive(pid)) removeSocketFile(join(dir, name));
  }
}

/** Reads what was appended to `file` after `offset`. */
function readFrom(file: string, offset: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const size = statSync(file).size;
    if (size <= offset) return "";
    const buffer = Buffer.alloc(size - offset);
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function listeningUrl(output: string): string | undefined {
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const parsed = ListeningSchema.safeParse(JSON.parse(line));
      if (parsed.success) return parsed.data.url;
    } catch {
      // Not the line we look for.
    }
  }
  return undefined;
}

/** Starts a runner and resolves once it listens; rejects with the reason when it cannot start. */
export async function spawnRunner(options: SpawnRunnerOptions): Promise<RunnerProcess> {
  const token = newRunnerToken();
  // The token goes on stdin, not in the environment: a process's first environment stays readable
  // (/proc/<pid>/environ) by the tools it runs.
  // Runners listen on a socket in `socketDir`, or else on loopback, whatever the server's environment
  // says: only the server talks to them.
  const env: Record<string, string | undefined> = {
    ...options.env,
    HARNESS_WORKSPACE: options.workspace,
    HARNESS_RUNNER_HOST: "127.0.0.1",
    HARNESS_RUNNER_PORT: "0",
    HARNESS_RUNNER_SOCKET_DIR: undefined,
    [RUNNER_TOKEN_ENV]: undefined,
    // The runner marks itself; one it inherited (this server runs under a runner) is not its own.
    [RUNNER_MARK_ENV]: undefined,
    [DEBUG_ENV]: undefined,
    [DEBUG_FILE_ENV]: undefined,
  };
  if (options.idleExitMs !== undefined) env.HARNESS_RUNNER_IDLE_EXIT_MS = String(options.idleExitMs);
  const { logFile, socketDir } = options;
  mkdirSync(dirname(logFile), { recursive: true });
  if (socketDir !== undefined) {
    mkdirSync(socketDir, { recursive: true });
    removeDeadSockets(socketDir);
    env.HARNESS_RUNNER_SOCKET_DIR = socketDir;
  }
  const tmp = runnersTmpDir(env);
  removeDeadSandboxSockets(tmp);
  rotateLog(logFile, MAX_LOG_BYTES);
  const debugFile = options.debug === undefined ? undefined : debugFileOf(logFile);
  if (debugFile !== undefined) {
    rotateLog(debugFile, MAX_LOG_BYTES);
    env[DEBUG_ENV] = options.debug === "" ? "1" : options.debug;
    env[DEBUG_FILE_ENV] = debugFile;
  }
  const fd = openSync(logFile, "a");
  const offset = statSync(logFile).size;
  // Its last words go into messages every client sees and the store keeps: without its token and
  // the secrets of the environment it was given, by value, nor one in a shape that says so.
  const { hide } = secretHiding([token, ...secretValuesOf(options.env)]);
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...RUNNER_GC_FLAGS, options.mainPath ?? runnerMainPath(), "--token-from-stdin"], {
      env,
      cwd: options.workspace,
      detached: true,
      stdio: ["pipe", fd, fd],
    });
    // A runner that died at once closes the pipe: its exit says why, not this write.
    child.stdin?.on("error", () => {});
    child.stdin?.end(`${token}\n`);
  } catch (err) {
    throw new Error(`cannot start the runner: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
  // The runner must not keep this process alive, nor die with it.
  child.unref();
  let exitedFlag = false;
  let exitReason = "";
  let end: ProcessEnd | undefined;
  let ready = false;
  let stopping = false;
  const exitListeners = exitListenerSet();
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exitedFlag = true;
      exitReason = signal ?? `code ${code}`;
      // What it last printed, unless it was asked to stop; its first line only said where it listens.
      const last = ready && !stopping ? lastWords(readFrom(logFile, offset)) : "";
      const said = listeningUrl(last) ? "" : hide(last);
      end = { how: `${signal ? "was killed" : "exited"} (${exitReason})`, ...(said && { said }) };
      // One that never got ready fails its start, which says why; one asked to stop is expected to.
      // An error of the server's: its sessions' runs end in error, and a log kept to warn shows it.
      if (ready && !stopping && exitReason !== "code 0") options.log?.(`runner ${child.pid} ${describeEnd(end, " while serving")}`, { level: "error", pid: child.pid });
      // Killed before it could end what it started (a sandboxed command's network relays, a
      // command): those are still in its process group, with nobody left to stop them.
      if (signal && child.pid !== undefined) {
        try {
          // The group alone: the pid itself is free now, and may already be another process's.
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Nothing was left in it.
        }
      }
      // Its socket, when it could not remove it, and what it started that left its group (Claude
      // Code's commands), however it ended.
      if (socketDir !== undefined && child.pid !== undefined) {
        const socket = runnerSocketPath(socketDir, child.pid);
        if (socket) removeSocketFile(socket);
      }
      sweepLeftoversSoon(tmp);
      resolve();
      exitListeners.fire();
    });
  });
  let spawnError: Error | undefined;
  child.once("error", (err) => (spawnError = err));

  const pid = child.pid;
  async function stop(graceMs = 5000): Promise<void> {
    if (exitedFlag || pid === undefined) return;
    stopping = true;
    signalGroup(pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(pid, "SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }

  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 50)) {
    const url = listeningUrl(readFrom(logFile, offset));
    if (url) {
      ready = true;
      options.log?.(`runner ${pid} listens on ${socketPathOf(new URL(url)) ?? url}; its output goes to ${logFile}${debugFile === undefined ? "" : `, its debug log to ${debugFile}`}`, { pid });
      return { url, pid, token, alive: () => !exitedFlag, exited, onExit: exitListeners.add, ended: () => end, stop };
    }
    if (spawnError) throw new Error(`cannot start the runner: ${spawnError.message}`);
    if (exitedFlag) {
      const said = hide(lastWords(readFrom(logFile, offset)));
      throw new Error(`the runner exited (${exitReason}) before it was ready${said ? `: ${said}` : ` (see ${logFile})`}`);
    }
    if (Date.now() > deadline) {
      await stop(1000);
      throw new Error(`the runner did not report that it listens within ${timeoutMs} ms`);
    }
    await Promise.race([sleep(wait), exited]);
  }
}

/** A runner an earlier server started, known by pid and URL. Its exit is noticed by polling. */
export function adoptRunner(info: RunnerProcessInfo, tmp: string = tmpdir()): RunnerProcess {
  let gone = false;
  let markExited!: () => void;
  const exited = new Promise<void>((resolve) => (markExited = resolve));
  const exitListeners = exitListenerSet();
  const check = (): boolean => {
    if (!gone && !pidAlive(info.pid)) {
      gone = true;
      clearInterval(poll);
      // Not its parent, so not told how it ended: what it started goes, as for a runner killed
      // (see spawnRunner), the group alone.
      try {
        process.kill(-info.pid, "SIGKILL");
      } catch {
        // Nothing was left in it.
      }
      const socket = socketPathOf(new URL(info.url));
      if (socket) removeSocketFile(socket);
      sweepLeftoversSoon(tmp);
      markExited();
      exitListeners.fire();
    }
    return !gone;
  };
  const poll = setInterval(check, 1000);
  poll.unref();
  return {
    url: info.url,
    pid: info.pid,
    ...(info.token && { token: info.token }),
    alive: check,
    exited,
    onExit: exitListeners.add,
    // Not its parent: how it ended is not known here.
    ended: () => (check() ? undefined : { how: "exited" }),
    async stop(graceMs = 5000) {
      if (!check()) return;
      signalGroup(info.pid, "SIGTERM");
      const deadline = Date.now() + graceMs;
      while (check() && Date.now() < deadline) await sleep(25);
      if (check()) signalGroup(info.pid, "SIGKILL");
      while (check()) await sleep(10);
    },
  };
}

/** The listeners of RunnerProcess.onExit: `fire` once the process has exited. */
function exitListenerSet(): { add(listener: () => void): () => void; fire(): void } {
  const listeners = new Set<() => void>();
  let fired = false;
  return {
    add(listener) {
      if (fired) {
        queueMicrotask(listener);
        return () => {};
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    fire() {
      fired = true;
      for (const listener of [...listeners]) listener();
      listeners.clear();
    },
  };
}
