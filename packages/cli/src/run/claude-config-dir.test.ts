// CLAUDE_CONFIG_DIR: the user's own configuration read from there instead of ~/.claude, as
// Claude Code does.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** A user configuration directory with settings (an allow rule and an env variable), an agent,
 * a command and a CLAUDE.md. */
function configDir(t: Parameters<typeof tempDir>[0]): string {
  const dir = tempDir(t);
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(echo:*)"] }, env: { GREETING: "from-the-config-dir" } }));
  mkdirSync(join(dir, "agents"));
  writeFileSync(join(dir, "agents", "cfg-scout.md"), "---\nname: cfg-scout\ndescription: Scouts from the configuration directory.\n---\nYou scout.\n");
  mkdirSync(join(dir, "commands"));
  writeFileSync(join(dir, "commands", "greet.md"), "---\ndescription: Greets.\n---\nGreet the team warmly, mentioning $ARGUMENTS.\n");
  writeFileSync(join(dir, "CLAUDE.md"), "Always answer in haiku.\n");
  return dir;
}

test("CLAUDE_CONFIG_DIR holds the user's settings, agents, commands and CLAUDE.md for harness run", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ name: "Bash", input: { command: "echo $GREETING" } }] }, { text: "Greeted." }] }));
  const config = configDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--output-format", "json", "/greet Ada"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    CLAUDE_CONFIG_DIR: config,
  }).result;
  assert.equal(code, 0, stderr + stdout);
  const first = JSON.stringify(fake.requests[0].body);
  assert.match(first, /Greet the team warmly, mentioning Ada\./, "the command of the configuration directory");
  assert.match(first, /cfg-scout/, "its agent is offered to the Task tool");
  assert.match(first, /Always answer in haiku\./, "its CLAUDE.md is the user's memory");
  assert.match(JSON.stringify(fake.requests[1].body.messages.at(-1)), /from-the-config-dir/, "its allow rule let the call run, with its env");
  assert.deepEqual(JSON.parse(stdout).permission_denials, []);
});

test("a relative CLAUDE_CONFIG_DIR is taken from the directory harness runs in; an empty one is no setting", async (t) => {
  const config = configDir(t);
  const parent = join(config, "..");
  const relative = config.slice(parent.length + 1);
  for (const [value, cwd, found] of [
    [relative, parent, true],
    ["", parent, false],
  ] as const) {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
    const { code, stderr } = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "hello"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, CLAUDE_CONFIG_DIR: value }, { cwd }).result;
    assert.equal(code, 0, stderr);
    assert.equal(/Always answer in haiku\./.test(JSON.stringify(fake.requests[0].body)), found, `CLAUDE_CONFIG_DIR=${JSON.stringify(value)}`);
  }
});

test("the apiKeyHelper of CLAUDE_CONFIG_DIR's settings makes the key of a run that has none", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const config = tempDir(t);
  writeFileSync(join(config, "settings.json"), JSON.stringify({ apiKeyHelper: "echo key-from-the-config-dir" }));
  const { code, stderr } = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "hello"], { ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: fake.url, CLAUDE_CONFIG_DIR: config }).result;
  assert.equal(code, 0, stderr);
  assert.equal(fake.requests[0].headers["x-api-key"], "key-from-the-config-dir");
});
