// Starts the real `harness serve` as a child process, for end-to-end tests and benchmarks.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "./wait.ts";

const cliMain = fileURLToPath(new URL("../../cli/bin/harness.mjs", import.meta.url));

/** The server's GC_FLAGS (packages/server/src/gc-flags.ts), which this package cannot import. */
export const SERVER_GC_FLAGS: readonly string[] = ["--single-threaded-gc", "--max-semi-space-size=2"];

export type HarnessProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once the output matches `pattern`; rejects after `timeoutMs` (default 10 s) naming
   * the pattern, with the output so far. A line the server prints as it answers a client may come
   * after the client has its answer: wait for it rather than read output() at once. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Stops it with `signal` (default SIGTERM) and waits for it to exit and its output to be read. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

export async function startHarnessServer(options: {
  dataDir: string;
  env?: Record<string, string | undefined>;
  port?: number;
  timeoutMs?: number;
  /** Flags after `serve`. */
  args?: string[];
}): Promise<HarnessProcess> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(options.port ?? 0),
    HARNESS_DATA_DIR: options.dataDir,
    // Runners outlive a killed server by design; in tests, orphans must not linger for long. The
    // server gives its runners this as their own idle exit (HARNESS_RUNNER_IDLE_EXIT_MS, which it
    // sets for them over what it inherits).
    HARNESS_RUNNER_IDLE_MS: "60000",
    // The user scope (~/.claude) of whoever runs the tests must not leak into them.
    HOME: join(options.dataDir, "home"),
    ...options.env,
  };
  // As `bin/harness serve` starts it, with the server's GC_FLAGS (gc-flags.ts).
  const child = spawn(process.execPath, [...SERVER_GC_FLAGS, cliMain, "serve", ...(options.args ?? [])], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const append = (s: string) => (output += s);
  child.stdout.setEncoding("utf8").on("data", append);
  child.stderr.setEncoding("utf8").on("data", append);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // "exit" may come before the last of the output is read; the pipes end after it (unless a child
  // of the server kept them open, hence the bound).
  const drained = (timeoutMs: number) =>
    Promise.race([Promise.all([child.stdout, child.stderr].map((stream) => stream.readableEnded || once(stream, "end"))), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`harness serve did not print its URL in time:\n${output}`)), options.timeoutMs ?? 20_000);
    const onData = () => {
      // The URL ends at white space, or at its closing quote in a JSON log (HARNESS_LOG_FORMAT=json).
      const match = /listening on (http:\/\/[^\s"]+)/i.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      resolve(match[1].replace(/\/$/, ""));
    };
    child.stdout.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`harness serve exited with ${code} before listening:\n${output}`));
    });
  });

  return {
    url,
    port: Number(new URL(url).port),
    child,
    output: () => output,
    waitForOutput: (pattern, timeoutMs = 10_000) =>
      waitFor(() => pattern.test(output), `harness serve to print ${pattern}`, { timeoutMs }).then(
        () => undefined,
        (error: Error) => Promise.reject(new Error(`${error.message}; it printed:\n${output}`)),
      ),
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const code = await exited;
      await drained(2_000);
      return code;
    },
  };
}
