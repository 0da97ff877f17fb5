import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { signalGroup, spawnGroup } from "../process/process-groups.ts";
import { hookOutcome } from "./hook-run.ts";
import type { HookRunResult } from "./types.ts";

/** Output kept from each of stdout and stderr; the rest is counted and dropped. */
const MAX_OUTPUT_BYTES = 1024 * 1024;
/** How long to keep reading after bash exits while something it left in the background holds the
 * output open. */
const CLOSE_GRACE_MS = 250;
/** setTimeout fires at once beyond this. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export type SpawnHookOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
};

/** Runs `bash -c command` with `stdin` on its standard input, in its own process group so that a
 * timeout or an abort kills everything it started. Never rejects. */
export function spawnHook(command: string, stdin: string, opts: SpawnHookOptions): Promise<HookRunResult> {
  const outcome = hookOutcome(command);
  if (opts.signal.aborted) return Promise.resolve(outcome({ aborted: true }));

  return new Promise((resolve) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawnGroup(command, { cwd: opts.cwd, env: opts.env, stdin: "pipe" }) as ChildProcessWithoutNullStreams;
    } catch (error) {
      // What spawn refuses outright (a NUL in the command or the environment) fails this hook only.
      resolve(outcome({ error: `cannot run the hook: ${error instanceof Error ? error.message : String(error)}` }));
      return;
    }
    const stdout = collector();
    const stderr = collector();
    let timedOut = false;
    let aborted = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const killGroup = () => {
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    };
    const onAbort = () => {
      if (!settled) aborted = true;
      killGroup();
    };
    opts.signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, Math.min(opts.timeoutMs, MAX_TIMER_MS));

    const settle = (error?: string) => {
      if (settled) return;
      settled = true;
      // A hook is a short command: what it leaves running in its group (`sleep … &`) would outlive
      // the run, the session and the server, one more process every time the hook fires.
      killGroup();
      clearTimeout(timer);
      clearTimeout(graceTimer);
      opts.signal.removeEventListener("abort", onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      const killedUnexpectedly = exitSignal !== null && !timedOut && !aborted;
      const result = outcome({
        exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        aborted,
      });
      if (error !== undefined) result.error = error;
      else if (killedUnexpectedly) result.error = `killed by signal ${exitSignal}`;
      resolve(result);
    };

    child.stdout.on("data", stdout.push);
    child.stderr.on("data", stderr.push);
    // A hook that exits without reading its input closes the pipe under us; that is not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
    child.on("error", (error) => settle(`cannot run bash in ${opts.cwd}: ${error.message}`));
    child.on("exit", (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      graceTimer = setTimeout(() => settle(), CLOSE_GRACE_MS);
    });
    child.on("close", () => settle());
  });
}

function collector(): { push(chunk: Buffer): void; text(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  return {
    push(chunk) {
      const room = MAX_OUTPUT_BYTES - size;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
      chunks.push(kept);
      size += kept.length;
      dropped += chunk.length - kept.length;
    },
    text() {
      const text = Buffer.concat(chunks, size).toString("utf8");
      return dropped === 0 ? text : `${text}\n... [${dropped.toLocaleString("en-US")} more bytes of output omitted]`;
    },
  };
}
