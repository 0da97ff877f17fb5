// Starting and stopping one runner process. It is started with --exit-with-stdin so it never
// outlives the server, even when the server is killed; it reports its URL on one stdout line.
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const ListeningSchema = z.object({ event: z.literal("listening"), url: z.string().url() });

export type RunnerProcess = {
  url: string;
  pid: number | undefined;
  /** True until the process exited. */
  alive(): boolean;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** Closes its stdin (it exits on its own), and kills it if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
};

export function runnerMainPath(): string {
  return join(dirname(fileURLToPath(import.meta.resolve("@harness/runner"))), "main.ts");
}

export type SpawnRunnerOptions = {
  workspace: string;
  env: Record<string, string | undefined>;
  mainPath?: string;
  startTimeoutMs?: number;
  log?: (line: string) => void;
};

/** Starts a runner and resolves once it listens; rejects with the reason when it cannot start. */
export function spawnRunner(options: SpawnRunnerOptions): Promise<RunnerProcess> {
  const env: Record<string, string | undefined> = { ...options.env, HARNESS_WORKSPACE: options.workspace, HARNESS_RUNNER_PORT: "0" };
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [options.mainPath ?? runnerMainPath(), "--exit-with-stdin"], {
      env,
      cwd: options.workspace,
      stdio: ["pipe", "pipe", "inherit"],
    });
  } catch (err) {
    return Promise.reject(new Error(`cannot start the runner: ${(err as Error).message}`));
  }
  // A closed stdin pipe on a dying runner must not crash the server.
  child.stdin?.on("error", () => {});
  let exitedFlag = false;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      exitedFlag = true;
      resolve();
    });
  });

  async function stop(graceMs = 5000): Promise<void> {
    if (exitedFlag) return;
    child.stdin?.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }

  return new Promise<RunnerProcess>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    let ready = false;
    const fail = (reason: string) => {
      if (ready) return;
      ready = true;
      clearTimeout(timer);
      void stop(1000);
      reject(new Error(reason));
    };
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    const timer = setTimeout(() => fail(`the runner did not report that it listens within ${timeoutMs} ms`), timeoutMs);
    child.once("error", (err) => fail(`cannot start the runner: ${err.message}`));
    child.once("exit", (code, signal) => fail(`the runner exited (${signal ?? `code ${code}`}) before it was ready`));
    lines.on("line", (line) => {
      if (ready) {
        options.log?.(`runner ${child.pid}: ${line}`);
        return;
      }
      let parsed: z.ZodSafeParseResult<z.infer<typeof ListeningSchema>> | undefined;
      try {
        parsed = ListeningSchema.safeParse(JSON.parse(line));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        options.log?.(`runner ${child.pid}: ${line}`);
        return;
      }
      ready = true;
      clearTimeout(timer);
      resolve({ url: parsed.data.url, pid: child.pid, alive: () => !exitedFlag, exited, stop });
    });
  });
}
