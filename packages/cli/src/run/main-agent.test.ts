// `harness run --agent NAME` (and the settings' `agent`): what of the agent's definition besides
// its prompt, tools and model the main thread takes, as Claude Code's main-thread agent does: its
// permission mode (under --permission-mode), its hooks (beside the settings'), and its MCP servers.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpTestServerCommand, startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const initOf = (stdout: string) => JSON.parse(stdout.split("\n")[0]!) as { permissionMode: string; tools: string[]; mcp_servers: { name: string; status: string }[] };

function agentFile(dir: string, name: string, front: string, body = "You work.") {
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  writeFileSync(join(dir, ".claude", "agents", `${name}.md`), `---\nname: ${name}\ndescription: The ${name}\n${front}---\n${body}\n`);
}

test("--agent: the agent's permissionMode is the run's, unless --permission-mode names one; a built-in agent's too", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ name: "Write", input: { file_path: "notes.txt", content: "written" } }] }, { text: "done" }, { text: "a" }, { text: "b" }, { text: "c" }] }));
  const dir = tempDir(t);
  agentFile(dir, "editor", "permissionMode: acceptEdits\n");
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const run = (...args: string[]) => harness(["run", "--cwd", dir, "--output-format", "stream-json", "--verbose", ...args, "go"], env).result;

  const asAgent = await run("--agent", "editor");
  assert.equal(asAgent.code, 0, asAgent.stderr);
  assert.equal(initOf(asAgent.stdout).permissionMode, "acceptEdits");
  // acceptEdits lets the edit through without asking.
  assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "written");

  const flagged = await run("--agent", "editor", "--permission-mode", "plan");
  assert.equal(flagged.code, 0, flagged.stderr);
  assert.equal(initOf(flagged.stdout).permissionMode, "plan");

  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ agent: "editor", permissions: { defaultMode: "default" } }));
  const fromSettings = await run();
  assert.equal(fromSettings.code, 0, fromSettings.stderr);
  assert.equal(initOf(fromSettings.stdout).permissionMode, "acceptEdits");

  const builtin = await run("--agent", "Plan");
  assert.equal(builtin.code, 0, builtin.stderr);
  assert.equal(initOf(builtin.stdout).permissionMode, "plan");
});

test("--agent: a project's agent file cannot choose bypassPermissions for the run (it is said), a user's can", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "a" }, { text: "b" }] }));
  const dir = tempDir(t);
  const home = tempDir(t);
  agentFile(dir, "bold", "permissionMode: bypassPermissions\n");
  agentFile(home, "mine", "permissionMode: bypassPermissions\n");
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home };
  const project = await harness(["run", "--cwd", dir, "--output-format", "stream-json", "--verbose", "--agent", "bold", "go"], env).result;
  assert.equal(project.code, 0, project.stderr);
  assert.equal(initOf(project.stdout).permissionMode, "default");
  // As stream-json, the warning is a notice event of stdout.
  assert.match(project.stdout, /The agent bold runs in default mode, not bypassPermissions: a project's agent file cannot choose it/);

  const user = await harness(["run", "--cwd", dir, "--output-format", "stream-json", "--verbose", "--agent", "mine", "go"], env).result;
  assert.equal(user.code, 0, user.stderr);
  assert.equal(initOf(user.stdout).permissionMode, "bypassPermissions");
  assert.ok(!existsSync(join(dir, "notes.txt")));
});

test("--agent: the agent's hooks run beside the settings' hooks, its Stop hooks as the run's Stop", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ name: "Write", input: { file_path: "notes.txt", content: "x" } }] }, { text: "done" }, { text: "plain" }] }));
  const dir = tempDir(t);
  const log = join(dir, "hooks.log");
  const logAs = (who: string) => `- hooks:\n        - type: command\n          command: "echo ${who} $(grep -o '\\"hook_event_name\\":\\"[A-Za-z]*\\"' | head -1) >> ${log}"\n`;
  agentFile(dir, "careful", `permissionMode: acceptEdits\nhooks:\n  PreToolUse:\n    ${logAs("agent")}  Stop:\n    ${logAs("agent")}`);
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `echo settings PreToolUse >> ${log}` }] }] } }));
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const asAgent = await harness(["run", "--cwd", dir, "--agent", "careful", "go"], env).result;
  assert.equal(asAgent.code, 0, asAgent.stderr);
  assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "x");
  assert.deepEqual(readFileSync(log, "utf8").trim().split("\n"), ["settings PreToolUse", 'agent "hook_event_name":"PreToolUse"', 'agent "hook_event_name":"Stop"']);

  // Without --agent the agent's hooks do not run.
  writeFileSync(log, "");
  const plain = await harness(["run", "--cwd", dir, "go"], env).result;
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(readFileSync(log, "utf8"), "");
});

test("--agent: the agent's SessionStart and UserPromptSubmit hooks fire, as they do for the main thread", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "done" }] }));
  const dir = tempDir(t);
  const log = join(dir, "hooks.log");
  const logAs = `- hooks:\n        - type: command\n          command: "grep -o '\\"hook_event_name\\":\\"[A-Za-z]*\\"' | head -1 >> ${log}"\n`;
  agentFile(dir, "greeter", `hooks:\n  SessionStart:\n    ${logAs}  UserPromptSubmit:\n    ${logAs}`);
  const result = await harness(["run", "--cwd", dir, "--agent", "greeter", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /never reaches an agent's hooks/);
  assert.deepEqual(readFileSync(log, "utf8").trim().split("\n"), ['"hook_event_name":"SessionStart"', '"hook_event_name":"UserPromptSubmit"']);
});

test("--agent: the MCP servers the agent file defines start with the run, beside the configured ones; --strict-mcp-config leaves them out", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "a" }, { text: "b" }, { text: "c" }] }));
  const dir = tempDir(t);
  const server = JSON.stringify(mcpTestServerCommand());
  agentFile(dir, "tooled", `mcpServers: [{"helper": ${server}}, "configured"]\n`);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const offered = (i: number) => (fake.requests[i]!.body.tools as { name: string }[]).map((tool) => tool.name);

  const asAgent = await harness(["run", "--cwd", dir, "--output-format", "stream-json", "--verbose", "--agent", "tooled", "go"], env).result;
  assert.equal(asAgent.code, 0, asAgent.stderr);
  assert.deepEqual(initOf(asAgent.stdout).mcp_servers.map((s) => `${s.name}:${s.status}`), ["helper:connected"]);
  assert.ok(offered(0).includes("mcp__helper__echo"), offered(0).join(", "));

  const plain = await harness(["run", "--cwd", dir, "go"], env).result;
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok(!offered(1).some((name) => name.startsWith("mcp__helper__")), offered(1).join(", "));

  const strict = await harness(["run", "--cwd", dir, "--agent", "tooled", "--strict-mcp-config", "go"], env).result;
  assert.equal(strict.code, 0, strict.stderr);
  assert.ok(!offered(2).some((name) => name.startsWith("mcp__helper__")), offered(2).join(", "));
});

test("an agent file's mcpServers that are not a list of names and single-server definitions are named, and the file does not load", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "a" }] }));
  const dir = tempDir(t);
  agentFile(dir, "wrong", "mcpServers: helper\n");
  agentFile(dir, "double", 'mcpServers: [{"a": {"command": "x"}, "b": {"command": "y"}}]\n');
  const { code, stderr } = await harness(["run", "--cwd", dir, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.match(stderr, /wrong\.md \(mcpServers\): mcpServers must be a list of server names and definitions \(\{"name": \{"command": …\}\}\), but got string "helper"/);
  assert.match(stderr, /double\.md \(mcpServers\): mcpServers\[0\] must define one server, as \{"name": \{"command": …\}\}, but defines 2/);
});
