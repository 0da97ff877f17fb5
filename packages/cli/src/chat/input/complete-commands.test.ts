import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandNames } from "./complete-commands.ts";

test("a local chat offers its own commands, the agent's built-ins and the project's and user's commands; a shared server's chat the first two", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "harness-complete-commands-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [home, cwd] = [join(root, "home"), join(root, "project")];
  mkdirSync(join(home, ".claude", "commands"), { recursive: true });
  mkdirSync(join(cwd, ".claude", "commands"), { recursive: true });
  writeFileSync(join(home, ".claude", "commands", "standup.md"), "Write my standup.");
  writeFileSync(join(cwd, ".claude", "commands", "deploy.md"), "Deploy.");
  const local = await commandNames({ cwd, home })();
  for (const name of ["quit", "rewind", "help", "compact", "context", "review", "deploy", "standup"]) assert.ok(local.includes(name), `${name} in ${local.join(" ")}`);
  assert.equal(local.filter((name) => name === "help").length, 1, "each once");
  const shared = await commandNames(undefined)();
  for (const name of ["quit", "rewind", "help", "compact", "context", "review"]) assert.ok(shared.includes(name), `${name} in ${shared.join(" ")}`);
  assert.ok(!shared.includes("deploy"));
});

test("a command whose name holds control characters (a terminal's escape sequences) is not offered", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "harness-complete-commands-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [home, cwd] = [join(root, "home"), join(root, "project")];
  mkdirSync(join(cwd, ".claude", "commands"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "commands", "wipe\x1b[2J.md"), "Wipe.");
  writeFileSync(join(cwd, ".claude", "commands", "ship.md"), "Ship.");
  const names = await commandNames({ cwd, home })();
  assert.ok(names.includes("ship"));
  assert.deepEqual(names.filter((name) => name.startsWith("wipe")), []);
});

test("a local chat started with --plugin-dir offers that plugin's commands, as its runs take them", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "harness-complete-commands-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [home, cwd, plugin] = [join(root, "home"), join(root, "project"), join(root, "dev", "tools")];
  mkdirSync(join(plugin, "commands"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(plugin, "commands", "hi.md"), "Say hi.");
  assert.ok((await commandNames({ cwd, home, pluginDirs: [plugin] })()).includes("tools:hi"));
  assert.ok(!(await commandNames({ cwd, home })()).includes("tools:hi"));
});

test("the commands the session's runs said they had (MCP servers' prompts, a shared server's project's commands) are offered too, as they change", async () => {
  let said: readonly string[] | undefined;
  const names = commandNames(undefined, () => said && { names: said });
  assert.ok(!(await names()).includes("mcp__docs__summarize"));
  said = ["help", "deploy", "mcp__docs__summarize", "bad\x1b[2J"];
  const now = await names();
  for (const name of ["deploy", "mcp__docs__summarize", "quit", "help"]) assert.ok(now.includes(name), `${name} in ${now.join(" ")}`);
  assert.equal(now.filter((name) => name === "help").length, 1, "each once");
  assert.ok(!now.some((name) => name.startsWith("bad")));
});

test("a command's argument hint comes from what the runs said when the chat cannot read it itself; one with control characters is left out", async () => {
  let hints: Record<string, string> | undefined;
  const names = commandNames(undefined, () => ({ names: ["review-pr", "bad"], hints }));
  await names();
  assert.equal(names.hint("review-pr"), undefined);
  hints = { "review-pr": "<number>", bad: "\x1b[2J", toString: "x" };
  assert.equal(names.hint("review-pr"), "<number>");
  assert.equal(names.hint("bad"), undefined);
  assert.equal(names.hint("constructor"), undefined);
});
