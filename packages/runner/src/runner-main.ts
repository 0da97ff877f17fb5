// The runner process (started through main.ts).
//   env HARNESS_RUNNER_PORT (default 0 = any free port), HARNESS_RUNNER_HOST (default 127.0.0.1),
//       HARNESS_WORKSPACE (default the current directory; created when missing)
//   --exit-with-stdin   exit when stdin closes, so a runner never outlives the process that
//                       spawned it (even when that process is killed with SIGKILL)
// When ready it prints exactly one line to stdout: {"event":"listening","url":"http://HOST:PORT"}.
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { createRunnerHandler } from "./server.ts";

function fail(message: string): never {
  process.stderr.write(`harness-runner: ${message}\n`);
  process.exit(1);
}

const portText = process.env.HARNESS_RUNNER_PORT || "0";
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`HARNESS_RUNNER_PORT must be a port number, got "${portText}"`);
const host = process.env.HARNESS_RUNNER_HOST || "127.0.0.1";
const workspace = resolve(process.env.HARNESS_WORKSPACE || process.cwd());
try {
  mkdirSync(workspace, { recursive: true });
} catch (err) {
  fail(`cannot create the workspace ${workspace}: ${(err as Error).message}`);
}

const handler = createRunnerHandler({ workspace });
const server = createServer({ noDelay: true }, handler.handle);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server.close();
  // A run's tools may have child processes: give the aborted run a moment to reap them.
  await Promise.race([handler.abortRun(), new Promise((r) => setTimeout(r, 3000).unref())]);
  server.closeAllConnections();
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

server.on("error", (err) => fail(`cannot listen on ${host}:${port}: ${err.message}`));
server.listen(port, host, () => {
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  process.stdout.write(`${JSON.stringify({ event: "listening", url: `http://${shownHost}:${address.port}` })}\n`);
  // Load the agent and the model SDK now rather than on the first query.
  import("./backends/builtin.ts").catch(() => {});
});
