// `harness run --add-dir DIR`: besides reaching its files, a directory added on the command line
// lends the run its skills, commands and agents, and (only when CLAUDE_CODE_ADDITIONAL_DIRECTORIES_
// CLAUDE_MD says so) its memory files, as Claude Code's --add-dir does. The settings'
// permissions.additionalDirectories only reach files.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

function write(file: string, text: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A directory to add, with a skill, a command and an agent, and memory files. */
function sharedDir(t: { after(fn: () => unknown): void }): string {
  const shared = tempDir(t);
  write(join(shared, ".claude", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploys the shared service\n---\nDeploy by the shared runbook.\n");
  write(join(shared, ".claude", "commands", "greet.md"), "---\ndescription: Greets\n---\nSay hello from the shared directory.\n");
  write(join(shared, ".claude", "commands", "clash.md"), "The shared clash command.\n");
  write(join(shared, ".claude", "agents", "auditor.md"), "---\nname: auditor\ndescription: Audits the shared code\n---\nAudit.\n");
  write(join(shared, "CLAUDE.md"), "Shared memory: always use tabs.\n");
  write(join(shared, ".claude", "rules", "style.md"), "Shared rule: no semicolons.\n");
  write(join(shared, ".claude", "settings.json"), JSON.stringify({ model: "claude-from-the-shared-dir" }));
  return shared;
}

test("--add-dir: the directory's skills, commands and agents load (a project's command of the same name wins); its settings do not", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
  const shared = sharedDir(t);
  const dir = tempDir(t);
  write(join(dir, ".claude", "commands", "clash.md"), "The project's clash command.\n");
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };

  const listed = await harness(["run", "--cwd", dir, "--add-dir", shared, "--", "hi"], env).result;
  assert.equal(listed.code, 0, listed.stderr);
  const body = JSON.stringify(fake.requests[0]!.body);
  assert.match(body, /deploy: Deploys the shared service/);
  assert.match(body, /auditor: Audits the shared code/);
  assert.doesNotMatch(body, /claude-from-the-shared-dir/);

  const greet = await harness(["run", "--cwd", dir, "--add-dir", shared, "--", "/greet"], env).result;
  assert.equal(greet.code, 0, greet.stderr);
  assert.match(JSON.stringify(fake.requests[1]!.body.messages), /Say hello from the shared directory\./);

  const clash = await harness(["run", "--cwd", dir, "--add-dir", shared, "--", "/clash"], env).result;
  assert.equal(clash.code, 0, clash.stderr);
  assert.match(JSON.stringify(fake.requests[2]!.body.messages), /The project's clash command\./);
});

test("--add-dir: --setting-sources without project leaves the directory's skills out; the settings' additionalDirectories lend none", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }] }));
  const shared = sharedDir(t);
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const sources = await harness(["run", "--cwd", dir, "--add-dir", shared, "--setting-sources", "user", "--", "hi"], env).result;
  assert.equal(sources.code, 0, sources.stderr);
  assert.doesNotMatch(JSON.stringify(fake.requests[0]!.body), /Deploys the shared service|Audits the shared code/);

  write(join(dir, ".claude", "settings.json"), JSON.stringify({ permissions: { additionalDirectories: [shared] } }));
  const settings = await harness(["run", "--cwd", dir, "hi"], env).result;
  assert.equal(settings.code, 0, settings.stderr);
  assert.doesNotMatch(JSON.stringify(fake.requests[1]!.body), /Deploys the shared service|Audits the shared code/);
});

test("--add-dir: the directory's CLAUDE.md and rules are read only when CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD is set, in the environment or the settings' env", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
  const shared = sharedDir(t);
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const run = (extra: Record<string, string>) => harness(["run", "--cwd", dir, "--add-dir", shared, "--", "hi"], { ...env, ...extra }).result;

  const unset = await run({});
  assert.equal(unset.code, 0, unset.stderr);
  assert.doesNotMatch(JSON.stringify(fake.requests[0]!.body), /Shared memory|Shared rule/);

  const set = await run({ CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD: "1" });
  assert.equal(set.code, 0, set.stderr);
  const body = JSON.stringify(fake.requests[1]!.body);
  assert.match(body, /Shared memory: always use tabs\./);
  assert.match(body, /Shared rule: no semicolons\./);

  write(join(dir, ".claude", "settings.json"), JSON.stringify({ env: { CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD: "true" } }));
  const fromSettings = await run({});
  assert.equal(fromSettings.code, 0, fromSettings.stderr);
  assert.match(JSON.stringify(fake.requests[2]!.body), /Shared memory: always use tabs\./);
});
