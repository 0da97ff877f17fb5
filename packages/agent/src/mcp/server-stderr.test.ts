// The report of a failed stdio server: the last few meaningful lines of its stderr, bounded, and
// what it wrote last even when it wrote much and exited at once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setDebugHow, setDebugWhere, startDebugLog, stopDebugLog } from "@harness/llm/debug-log";
import type { McpRunServerConfig } from "./config.ts";
import { connectServer } from "./connection.ts";
import { ServerStderr } from "./server-stderr.ts";

// As `harness run` says it; a runner has no way to give.
setDebugHow((category) => `harness run --debug ${category}`);

const config: McpRunServerConfig = { name: "s", scope: "project", file: ".mcp.json", type: "stdio", command: "x", args: [], env: {} };

function reportOf(...chunks: string[]): string {
  const stderr = new ServerStderr(config);
  for (const chunk of chunks) stderr.write(chunk);
  stderr.end();
  return stderr.report("its process exited with code 1");
}

test("a short stderr is shown whole, without a hint; none at all adds nothing", () => {
  assert.equal(reportOf("missing DATABASE_URL\n"), "its process exited with code 1; its stderr ended with:\n  missing DATABASE_URL");
  assert.equal(reportOf("", "\n \n"), "its process exited with code 1");
});

test("npm before version 9 (npm ERR!, the log's path on a line of its own) and its notices are trimmed", () => {
  const report = reportOf(
    [
      "npm notice New major version of npm available! 8.19.4 -> 11.0.0",
      "npm ERR! code E404",
      "npm ERR! 404 Not Found - GET https://registry.npmjs.org/nope - Not found",
      "npm ERR! 404",
      "npm ERR! A complete log of this run can be found in:",
      "npm ERR!     /root/.npm/_logs/2026-01-01T00_00_00_000Z-debug-0.log",
      "npm notice Run npm install -g npm@11.0.0 to update!",
    ].join("\n"),
  );
  assert.equal(
    report,
    "its process exited with code 1; its stderr ended with:\n  npm ERR! code E404\n  npm ERR! 404 Not Found - GET https://registry.npmjs.org/nope - Not found\n  (harness run --debug mcp shows all of its stderr)",
  );
});

test("terminal escapes are dropped, long lines cut, and at most five lines shown", () => {
  const report = reportOf("a\nb\n", "\x1b[31mError:\x1b[0m \x1b]0;title\x07bad\r\n", `${"y".repeat(500)}\n`, "c\nd\ne\n");
  const lines = report.split("\n");
  assert.deepEqual(lines.slice(1), ["  Error: bad", `  ${"y".repeat(199)}…`, "  c", "  d", "  e", "  (harness run --debug mcp shows all of its stderr)"]);
});

test("where no command can show the debug log (a runner's process), a cut stderr is reported without a hint", (t) => {
  setDebugHow(undefined);
  t.after(() => setDebugHow((category) => `harness run --debug ${category}`));
  assert.equal(reportOf("a\nb\nc\nd\ne\nf\n"), "its process exited with code 1; its stderr ended with:\n  b\n  c\n  d\n  e\n  f");
});

test("in a runner whose debug log is on for mcp (a server's HARNESS_DEBUG), a cut stderr's report names the log's file", (t) => {
  setDebugHow(undefined);
  const written: string[] = [];
  startDebugLog((line) => written.push(line), (category) => category === "mcp");
  setDebugWhere("/data/runners/ann/runner-0.debug.log");
  t.after(() => {
    setDebugWhere(undefined);
    stopDebugLog();
    setDebugHow((category) => `harness run --debug ${category}`);
  });
  assert.equal(reportOf("a\nb\nc\nd\ne\nf\n"), "its process exited with code 1; its stderr ended with:\n  b\n  c\n  d\n  e\n  f\n  (all of its stderr is in /data/runners/ann/runner-0.debug.log)");
  assert.equal(written.length, 6, "every line in the log");
  assert.equal(reportOf("short\n"), "its process exited with code 1; its stderr ended with:\n  short", "a whole stderr needs no pointer");
  startDebugLog((line) => written.push(line), (category) => category === "api");
  assert.equal(reportOf("a\nb\nc\nd\ne\nf\n"), "its process exited with code 1; its stderr ended with:\n  b\n  c\n  d\n  e\n  f", "a log without mcp lines holds none of it");
});

test("a server that exits at start is reported with its exit code and what it wrote last, however much came before", async () => {
  const script = "head -c 300000 /dev/zero | tr '\\0' x >&2; printf '\\nthe real reason\\n' >&2; exit 4";
  const connection = await connectServer({ ...config, command: "sh", args: ["-c", script] }, { cwd: process.cwd(), env: process.env, timeoutMs: 10_000, signal: new AbortController().signal, onLost: () => {} });
  assert.equal(connection.state, "failed");
  assert.match(connection.error ?? "", /^its process exited with code 4; its stderr ended with:\n {2}x+…\n {2}the real reason\n/);
});
