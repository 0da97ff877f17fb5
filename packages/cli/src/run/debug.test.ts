// `harness run --debug [filter]` and `--debug-file PATH`: timestamped lines about model requests,
// MCP servers, hooks and permission decisions, on stderr or in the file; stdout as without them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpTestServerCommand, startFakeAnthropic, toolThenText } from "@harness/test-utils";
import { parseArgs } from "../args.ts";
import { harness, streamLinesOf, tempDir, withFake } from "../test-support.ts";

const KEY = "sk-ant-secret-key-123";
const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[DEBUG\] \[(api|mcp|hooks|permissions)\] /;

/** A run of Bash (allowed by a rule) with a PreToolUse hook and an MCP server, after one 529. */
async function debugRun(t: Parameters<typeof tempDir>[0], flags: string[]) {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ kind: "http-error", status: 529 }, ...toolThenText("Bash", { command: "echo hi" }, "It printed hi.")] }));
  const dir = tempDir(t);
  const settings = join(dir, "settings.json");
  writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 0" }] }] } }));
  const server = { ...mcpTestServerCommand(), env: { TOKEN: "mcp-secret-token" } };
  const remote = { type: "http", url: "http://user:mcp-secret-password@127.0.0.1:9/mcp?token=mcp-secret-query", headers: { Authorization: "Bearer mcp-secret-header" } };
  const mcp = JSON.stringify({ mcpServers: { tester: server, remote } });
  const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--allowedTools", "Bash(echo:*)", "--settings", settings, "--mcp-config", mcp, "--output-format", "stream-json", ...flags, "--", "say hi"];
  return { dir, ...(await harness(args, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url, HARNESS_RETRY_BASE_MS: "1", HARNESS_MODEL_RETRIES: "2" }).result) };
}

test("--debug: stderr has a timestamped line for each model request and retry, the MCP server, the hook and the permission decision; stdout stays stream-json", async (t) => {
  const { code, stdout, stderr } = await debugRun(t, ["--debug"]);
  assert.equal(code, 0, stderr);
  const lines = streamLinesOf(stdout);
  assert.equal(lines.at(-1)!.type, "result", "every stdout line is JSON");
  const debug = stderr.trimEnd().split("\n");
  for (const line of debug) assert.match(line, LINE);
  const has = (pattern: RegExp) => assert.ok(debug.some((line) => pattern.test(line)), `${pattern} in:\n${stderr}`);
  has(/\[api\] request model=claude-sonnet-4-6 attempt=1$/);
  has(/\[api\] response model=claude-sonnet-4-6 attempt=1 failed .*529.* after \d+ ms request-id=req_\w+$/);
  has(/\[api\] retry attempt=2 in \d+ ms/);
  has(/\[api\] response model=claude-sonnet-4-6 attempt=2 ok stop=tool_use after \d+ ms request-id=req_\w+$/);
  has(/\[mcp\] server tester starting: .*node.*mcp-test-server\.ts/);
  has(/\[mcp\] server tester connected/);
  has(/\[mcp\] server tester stopped/);
  has(/\[mcp\] server remote starting: http http:\/\/127\.0\.0\.1:9\/mcp$/);
  has(/\[mcp\] server remote failed: /);
  has(/\[hooks\] PreToolUse on Bash: command "exit 0" exited 0 after \d+ ms/);
  has(/\[permissions\] Bash allow by rule Bash\(echo:\*\)/);
  assert.ok(!stderr.includes(KEY) && !stderr.includes("mcp-secret"), "no secrets");
});

test("--debug permissions in dontAsk mode: a call the mode refuses is decided once, one deny line, one PermissionDenied hook, one denial", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: toolThenText("Bash", { command: "touch made.txt" }, "It was refused.") }));
  const dir = tempDir(t);
  const denied = join(dir, "denied.jsonl");
  const settings = join(dir, "settings.json");
  writeFileSync(settings, JSON.stringify({ hooks: { PermissionDenied: [{ hooks: [{ type: "command", command: `cat >> "${denied}"; echo >> "${denied}"` }] }] } }));
  const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "dontAsk", "--settings", settings, "--output-format", "json", "--debug", "permissions", "--", "make a file"];
  const { code, stdout, stderr } = await harness(args, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  const decisions = stderr.trimEnd().split("\n").filter((line) => / \[permissions\] Bash /.test(line));
  assert.equal(decisions.length, 1, stderr);
  assert.match(decisions[0]!, /\[permissions\] Bash deny \(dontAsk mode is on/);
  assert.equal(readFileSync(denied, "utf8").trim().split("\n").length, 1, "the PermissionDenied hook ran once");
  assert.equal((JSON.parse(stdout) as { permission_denials: unknown[] }).permission_denials.length, 1);
});

test("--debug api shows only the model requests; --debug-file writes there and leaves stderr empty", async (t) => {
  const filtered = await debugRun(t, ["--debug", "api"]);
  assert.equal(filtered.code, 0, filtered.stderr);
  const lines = filtered.stderr.trimEnd().split("\n");
  assert.ok(lines.length >= 4 && lines.every((line) => / \[api\] /.test(line)), filtered.stderr);

  const dir = tempDir(t);
  const file = join(dir, "debug.log");
  const written = await debugRun(t, ["--debug=!api,!mcp", "--debug-file", file]);
  assert.equal(written.code, 0, written.stderr);
  assert.equal(written.stderr, "");
  const log = readFileSync(file, "utf8").trimEnd().split("\n");
  assert.ok(log.some((line) => / \[hooks\] /.test(line)) && log.every((line) => LINE.test(line) && !/ \[(api|mcp)\] /.test(line)), log.join("\n"));
});

test("without --debug nothing is written to stderr", async (t) => {
  const { code, stdout, stderr } = await debugRun(t, []);
  assert.equal(code, 0, stdout.slice(-600));
  assert.equal(stderr, "");
});

test("--debug takes a filter only when it names categories; a bad filter or file is refused in one line", async (t) => {
  const plain = parseArgs(["run", "--debug", "fix the bug"]);
  assert.equal(plain.kind === "run" && plain.prompt, "fix the bug");
  assert.deepEqual(plain.kind === "run" && plain.debug, { filter: "" });
  const named = parseArgs(["run", "-d", "api,hooks", "hi"]);
  assert.deepEqual(named.kind === "run" && [named.prompt, named.debug], ["hi", { filter: "api,hooks" }]);
  const mixed = parseArgs(["run", "--debug=api,!mcp", "hi"]);
  assert.match(mixed.kind === "usage-error" ? mixed.message : "", /mixes categories/);
  // Before an option, --, or at the end, --debug has no filter; --debug= is one of all categories.
  const filters = (...args: string[]) => {
    const parsed = parseArgs(["run", ...args]);
    return parsed.kind === "run" ? [parsed.prompt, parsed.debug?.filter, parsed.verbose] : parsed.kind === "usage-error" ? parsed.message : parsed.kind;
  };
  assert.deepEqual(filters("--debug", "--verbose", "hi"), ["hi", "", true]);
  assert.deepEqual(filters("-d", "--", "api"), ["api", "", undefined]);
  assert.deepEqual(filters("hi", "--debug"), ["hi", "", undefined]);
  assert.deepEqual(filters("--debug=", "hi"), ["hi", "", undefined]);
  assert.deepEqual(filters("--debug", "api", "--debug-to-stderr", "hi"), ["hi", "api", undefined]);
  assert.deepEqual(filters("--debug-to-stderr", "--debug=mcp", "hi"), ["hi", "mcp", undefined]);
  assert.equal(filters("--debug=fix the bug", "hi"), '--debug filter "fix the bug": "fix the bug" is not a category (they are api, mcp, hooks, permissions, telemetry)');
  assert.equal(filters("-d", "--debug-file"), "--debug-file needs a value");
  const toStderr = parseArgs(["run", "--debug-to-stderr", "hi"]);
  assert.deepEqual(toStderr.kind === "run" && toStderr.debug, { filter: "" });
  const fileOnly = parseArgs(["run", "--debug-file", "/tmp/x.log", "hi"]);
  assert.deepEqual(fileOnly.kind === "run" && fileOnly.debug, { filter: "", file: "/tmp/x.log" });
  const dir = tempDir(t);
  const bad = await harness(["run", "--cwd", dir, "--debug-file", join(dir, "no/such/dir/x.log"), "hi"], { ANTHROPIC_API_KEY: "k" }).result;
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /^harness: --debug-file: cannot write .*no\/such\/dir\/x\.log/);
});
