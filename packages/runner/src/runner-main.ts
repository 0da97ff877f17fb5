// The runner process (started through main.ts).
//   env HARNESS_RUNNER_PORT (default 0 = any free port), HARNESS_RUNNER_HOST (default 127.0.0.1),
//       HARNESS_WORKSPACE (default the current directory; created when missing),
//       HARNESS_STATE_DIR (default <workspace>.harness-state: checkpoints, backends' own state),
//       HARNESS_BACKEND (builtin | claude-code: the backend of queries that name none; default builtin),
//       HARNESS_RUNNER_IDLE_EXIT_MS (default 15 min; 0 = never): exit after this long without a run
//       or a request, so that a runner whose server died does not live on forever,
//       HARNESS_RUNNER_SOCKET_DIR: when set, listen on a Unix socket in that directory
//       (runner-<pid>.sock, mode 0600) instead of HOST:PORT, unless its path is too long for a
//       socket address (unix-socket.ts); how the server starts its runners,
//       HARNESS_RUNNER_TOKEN: when set, every request must carry `Authorization: Bearer <token>`
//       (token.ts); it is taken out of the environment its tools and hooks get, but the process's
//       first environment stays readable in /proc/<pid>/environ: --token-from-stdin does not
//       HARNESS_SANDBOX_HIDE: paths (separated as in PATH) that the Bash sandbox, when a workspace's
//       settings turn it on, hides from commands but for the working directories inside them; the
//       server names its data directory (the store, the other sessions' files),
//       HARNESS_DEBUG_FILE, HARNESS_DEBUG: the debug log, appended to that file, of the categories
//       of that filter (as `harness run --debug` takes it; 1 for all), how a server's HARNESS_DEBUG
//       reaches its runners (debug-setting.ts); both are taken out of the environment,
//       HARNESS_RUNNER_VERSION: what /health says its version is (for tests only: version.ts),
//   --token-from-stdin  the token is the first line of stdin (how the server hands it over)
//   --exit-with-stdin   exit when stdin closes, so a runner never outlives the process that
//                       spawned it (even when that process is killed with SIGKILL)
// It sets HARNESS_RUNNER_PROCESS, its mark, in the environment of everything it starts (orphans.ts).
// Besides its own workspace it serves the workspaces opened under /workspaces/:id (host.ts).
// When ready it prints exactly one line to stdout: {"event":"listening","url":"http://HOST:PORT"}, or
// on a socket {"event":"listening","url":"http+unix://<the socket's path, percent-encoded>"}.
import { makeDirsSync } from "@harness/agent/make-dirs";
import { chmodSync, existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { defaultBackendName } from "./backends/registry.ts";
import { startRunnerDebug } from "./debug-setting.ts";
import { createIdleTimer, idleExitMs } from "./idle.ts";
import { answerClientErrors } from "./http/client-error.ts";
import { createRunnerHost } from "./host.ts";
import { markRunnerProcess } from "./orphans.ts";
import { runnerVersion } from "./version.ts";
import { startProcessTelemetry, stopTelemetry, TELEMETRY_EXIT_BOUND_MS } from "./telemetry/active.ts";
import { debugLog, debugOn } from "@harness/llm/debug-log";
import { RUNNER_KEEP_ALIVE_MS } from "./client/node-transport.ts";
import { isLoopbackHost } from "./loopback.ts";
import { requireLoopbackName, requireToken, RUNNER_TOKEN_ENV } from "./token.ts";
import { removeSocketFile, runnerSocketPath, unixSocketUrl } from "./unix-socket.ts";

function fail(message: string): never {
  process.stderr.write(`harness-runner: ${message}\n`);
  process.exit(1);
}

const portText = process.env.HARNESS_RUNNER_PORT || "0";
const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
if (!(port <= 65535)) fail(`HARNESS_RUNNER_PORT must be a port number (0 to 65535), got "${portText}"`);
const host = process.env.HARNESS_RUNNER_HOST || "127.0.0.1";
const idle = idleExitMs(process.env.HARNESS_RUNNER_IDLE_EXIT_MS);
if (!idle.ok) fail(idle.error);
const backend = defaultBackendName(process.env);
if (!backend.ok) fail(backend.error);
const workspace = resolve(process.env.HARNESS_WORKSPACE || process.cwd());
try {
  makeDirsSync(workspace);
} catch (err) {
  fail(`cannot create the workspace ${workspace}: ${(err as Error).message}`);
}
const socketDir = process.env.HARNESS_RUNNER_SOCKET_DIR;
const socketPath = socketDir ? runnerSocketPath(resolve(socketDir), process.pid) : undefined;
const stateDir = process.env.HARNESS_STATE_DIR ? resolve(process.env.HARNESS_STATE_DIR) : undefined;
// Before anything is started: whatever this runner starts can be found by its mark once it is gone.
markRunnerProcess();
const fromEnvironment = process.env[RUNNER_TOKEN_ENV] || undefined;
delete process.env[RUNNER_TOKEN_ENV];
const token = process.argv.includes("--token-from-stdin")
  ? await firstLineOfStdin().catch((error: Error) => fail(`--token-from-stdin: ${error.message}`))
  : fromEnvironment;
const debugProblem = startRunnerDebug(process.env, [token]);
if (debugProblem !== undefined) fail(debugProblem);
// OpenTelemetry export of this runner's runs (CLAUDE_CODE_ENABLE_TELEMETRY, OTEL_*): its notes and
// failures go to the debug log; the console exporter's lines too, else to stderr.
await startProcessTelemetry(process.env, {
  debug: (line) => debugLog("telemetry", line),
  console: (line) => (debugOn("telemetry") ? debugLog("telemetry", line) : process.stderr.write(`harness-runner: ${line}\n`)),
  note: (message) => process.stderr.write(`harness-runner: ${message}\n`),
});

const handler = createRunnerHost({ workspace, stateDir, defaultBackend: backend.name });
const handle = (req: IncomingMessage, res: ServerResponse) => handler.handle(req, res);
const guarded = token ? requireToken(token, handle) : !socketPath && isLoopbackHost(host) ? requireLoopbackName(handle) : handle;
const server = createServer({ noDelay: true }, guarded);
answerClientErrors(server);
// A client closes connections it left idle well before this (client/node-transport.ts: 2 s), so
// that it never sends a request on a connection this side is closing.
server.keepAliveTimeout = RUNNER_KEEP_ALIVE_MS;

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server.close();
  // A run's tools may have child processes: give the aborted run a moment to reap them.
  await Promise.race([handler.close(), new Promise((r) => setTimeout(r, 3000).unref())]);
  server.closeAllConnections();
  await stopTelemetry(TELEMETRY_EXIT_BOUND_MS);
  process.exit(0);
}

process.on("SIGTERM", stop);
process.on("SIGINT", stop);
if (process.argv.includes("--exit-with-stdin")) {
  process.stdin.on("end", stop);
  process.stdin.on("close", stop);
  process.stdin.on("error", stop);
  process.stdin.resume();
}
if (idle.ms > 0) {
  const timer = createIdleTimer(idle.ms, handler.isBusy, () => {
    process.stderr.write(`harness-runner: no run and no request for ${idle.ms} ms; exiting\n`);
    void stop();
  });
  handler.onActivity(timer.touch);
  server.on("connection", timer.touch);
}

server.on("error", (err) => {
  // Listening on a socket in a directory that is not there fails with EACCES, which misleads.
  if (socketPath && !existsSync(dirname(socketPath))) fail(`cannot listen on ${socketPath}: HARNESS_RUNNER_SOCKET_DIR ${dirname(socketPath)} does not exist`);
  fail(`cannot listen on ${socketPath ?? `${host}:${port}`}: ${err.message}`);
});
const listening = (url: string) => {
  process.stdout.write(`${JSON.stringify({ event: "listening", url })}\n`);
  // Load the default backend (the agent and the model SDK, for builtin) now rather than on the first query.
  if (backend.name === "builtin") import("./backends/builtin.ts").catch(() => {});
  // Its version is taken from the files as they are now, those it loaded, not at its first /health.
  setImmediate(() => runnerVersion());
};
if (socketPath) {
  // A socket there now was left by a process that had this pid and is gone; anything else at that
  // path is left alone, and listening then fails, saying so.
  removeSocketFile(socketPath);
  process.on("exit", () => removeSocketFile(socketPath));
  server.listen(socketPath, () => {
    chmodSync(socketPath, 0o600);
    listening(unixSocketUrl(socketPath));
  });
} else {
  server.listen(port, host, () => {
    const address = server.address() as AddressInfo;
    const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
    listening(`http://${shownHost}:${address.port}`);
  });
}

/** The first line of stdin, trimmed (and not empty); stdin is left paused after it. */
function firstLineOfStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const done = (error?: Error, line?: string) => {
      process.stdin.off("data", onData);
      process.stdin.off("end", onEnd);
      process.stdin.pause();
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(line!);
    };
    const onData = (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end >= 0) {
        const line = text.slice(0, end).trim();
        done(line ? undefined : new Error("the first line of stdin is empty"), line);
      } else if (text.length > 4096) done(new Error("no line break in the first 4096 characters of stdin"));
    };
    const onEnd = () => done(new Error("stdin ended before a whole line"));
    const timer = setTimeout(() => done(new Error("no line on stdin within 10 s")), 10_000);
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", onData);
    process.stdin.on("end", onEnd);
  });
}
