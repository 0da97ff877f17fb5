// A server's debug log (HARNESS_DEBUG, `harness serve --debug`): each runner writes one beside its
// output, and the report of a session's failed MCP server names it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MinimalClient, SECRET_PROCESS_ENV, SECRET_SETTINGS_ENV, secretMcpServers, startHarnessServer } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-runner-debug-");

/** A data directory whose user (HOME inside it) has a stdio MCP server that writes 30 lines on
 * stderr and exits. */
async function withBrokenServer(): Promise<string> {
  const dataDir = await newDataDir();
  const home = join(dataDir, "home");
  mkdirSync(home, { recursive: true });
  const script = join(home, "server.mjs");
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  writeFileSync(script, `process.stderr.write(${JSON.stringify(lines.join("\n") + "\n")}); process.exit(1);\n`);
  // The script ignores the URL: it stands for credentials a server's command line may carry.
  const args = [script, "--upstream", "https://bob:hunter2@mcp.example.com/sse?token=SECRET1"];
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: { broken: { command: process.execPath, args } } }));
  return dataDir;
}

/** A data directory whose user's MCP servers and settings hold secrets (secretMcpServers). */
async function withSecretServers(): Promise<string> {
  const dataDir = await newDataDir();
  const home = join(dataDir, "home");
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: secretMcpServers(home) }));
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: SECRET_SETTINGS_ENV }));
  return dataDir;
}

async function failedServerNotice(server: { url: string }, sessionId: string, name = "broken"): Promise<string> {
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId });
  try {
    client.send({ type: "submit", prompt: "hello" });
    await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the run's end");
    const notices = (client.state as { notices?: { message: string }[] }).notices ?? [];
    const notice = notices.find((n) => n.message.includes(`MCP server ${name} failed`));
    assert.ok(notice, `a notice of the failed server among ${JSON.stringify(notices)}`);
    return notice.message;
  } finally {
    await client.close();
  }
}

test("with HARNESS_DEBUG=mcp, a runner's debug file holds all of a failed MCP server's stderr, and the session's report names it", async (t) => {
  fake().push({ text: "hi" });
  const dataDir = await withBrokenServer();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_DEBUG: "mcp" } });
  t.after(() => server.stop());
  const message = await failedServerNotice(server, "debugged");
  const file = join(dataDir, "runners", "ann", "runner-0.debug.log");
  assert.match(message, /its stderr ended with:\n  line 26\n(?:  line \d+\n){4}/);
  assert.ok(message.endsWith(`  (all of its stderr is in ${file})`), message);
  const debug = readFileSync(file, "utf8");
  for (let i = 1; i <= 30; i++) assert.match(debug, new RegExp(`^\\S+ \\[ann/debugged\\] \\[DEBUG\\] \\[mcp\\] server broken stderr: line ${i}$`, "m"));
  await server.waitForOutput(new RegExp(`its debug log to ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
});

test("harness serve --debug logs every category, and neither the key nor a URL's credentials", async (t) => {
  fake().push({ text: "hi" });
  const dataDir = await withBrokenServer();
  const server = await startHarnessServer({ dataDir, env: modelEnv(), args: ["--debug"] });
  t.after(() => server.stop());
  const message = await failedServerNotice(server, "flagged");
  const file = join(dataDir, "runners", "ann", "runner-0.debug.log");
  assert.ok(message.endsWith(`  (all of its stderr is in ${file})`), message);
  const debug = readFileSync(file, "utf8");
  assert.match(debug, /\[DEBUG\] \[api\] request model=/);
  assert.match(debug, /\[DEBUG\] \[mcp\] server broken starting: .* --upstream https:\/\/\*\*\*@mcp\.example\.com\/sse\?\*\*\*$/m);
  assert.match(debug, /\[DEBUG\] \[mcp\] server broken stderr: line 1$/m);
  assert.doesNotMatch(debug, /test-key|hunter2|SECRET1/);
});

test("a runner's debug log and the server's log hide the secrets of an MCP server's arguments, env, headers and stderr, keeping the flags' names", async (t) => {
  fake().push({ text: "hi" });
  const dataDir = await withSecretServers();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), ...SECRET_PROCESS_ENV, HARNESS_DEBUG: "mcp" } });
  t.after(() => server.stop());
  await failedServerNotice(server, "secrets", "leaky");
  const debug = readFileSync(join(dataDir, "runners", "ann", "runner-0.debug.log"), "utf8");
  assert.doesNotMatch(debug, /s3cret/);
  assert.doesNotMatch(server.output(), /s3cret/);
  assert.match(debug, /\[mcp\] server leaky starting: \S*node\S* \S*leaky-server\.mjs --api-key \*\*\* --token=\*\*\* -H Authorization: Bearer \*\*\* --header X-Api-Key:\*\*\* --verbose$/m);
  for (const said of ["credential", "settings token", "password"]) assert.match(debug, new RegExp(`\\[mcp\\] server leaky stderr: ${said}: \\*\\*\\*$`, "m"));
  assert.match(debug, /\[mcp\] server leaky stderr: upstream refused \*\*\* and \*\*\*$/m);
});

test("each line a run writes names its session, as two sessions share one runner's file", async (t) => {
  fake().push({ text: "one" }, { text: "two" });
  const dataDir = await withBrokenServer();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_DEBUG: "api" } });
  t.after(() => server.stop());
  await failedServerNotice(server, "first");
  await failedServerNotice(server, "second");
  const debug = readFileSync(join(dataDir, "runners", "ann", "runner-0.debug.log"), "utf8");
  const requests = debug.split("\n").filter((line) => / \[api\] request model=/.test(line));
  assert.equal(requests.length, 2, debug);
  assert.match(requests[0]!, /^\S+ \[ann\/first\] \[DEBUG\] \[api\] request/);
  assert.match(requests[1]!, /^\S+ \[ann\/second\] \[DEBUG\] \[api\] request/);
  assert.doesNotMatch(debug, /hello/, "no prompt");
});

test("without it, the report names no debug log and the runner writes none", async (t) => {
  fake().push({ text: "hi" });
  const dataDir = await withBrokenServer();
  const server = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => server.stop());
  const message = await failedServerNotice(server, "quiet");
  assert.match(message, /its stderr ended with:\n  line 26\n(?:  line \d+\n){3}  line 30$/);
  assert.throws(() => readFileSync(join(dataDir, "runners", "ann", "runner-0.debug.log")), /ENOENT/);
});
