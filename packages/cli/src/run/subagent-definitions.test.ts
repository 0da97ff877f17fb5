// What an agent file's `skills` and `mcpServers` give a sub-agent that a Task call starts, as in
// Claude Code: the skills' full text with its task, and the MCP servers' tools.
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

const taskCall = (type: string) => ({ toolUses: [{ name: "Task", input: { description: "Do it", prompt: "Do the task.", subagent_type: type } }] });

test("a sub-agent starts with the full text of the skills its agent file names; one not found is said, and it starts without it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [taskCall("deployer"), { text: "Deployed." }, { text: "All done." }] }));
  const dir = tempDir(t);
  write(join(dir, ".claude", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploys\n---\nRun make deploy, then check the dashboard.\n");
  write(join(dir, ".claude", "skills", "other", "SKILL.md"), "---\nname: other\ndescription: Other work\n---\nThe other skill's text.\n");
  write(join(dir, ".claude", "agents", "deployer.md"), "---\nname: deployer\ndescription: Deploys the service\nskills: deploy, missing\n---\nYou deploy.\n");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--output-format", "stream-json", "--verbose", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  const first = JSON.stringify(fake.requests[1]!.body.messages);
  assert.match(first, /Run make deploy, then check the dashboard\./);
  assert.match(first, /Do the task\./);
  assert.doesNotMatch(first, /The other skill's text\./);
  assert.doesNotMatch(JSON.stringify(fake.requests[0]!.body.messages), /Run make deploy/);
  assert.match(stdout, /The agent deployer names the skill missing, which is not found/);
});

test("an agent file's skills that are not a list of names are named, and the agent does not load", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "hi" }] }));
  const dir = tempDir(t);
  write(join(dir, ".claude", "agents", "bad.md"), "---\nname: bad\ndescription: Bad skills\nskills:\n  deploy: yes\n---\nYou deploy.\n");
  const { code, stderr } = await harness(["run", "--cwd", dir, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.match(stderr, /bad\.md \(skills\): skills must be a comma-separated list \("deploy, review"\) or a YAML list of skill names, but got a mapping/);
});

test("--agents: an agent given as JSON preloads its skills too; skills that are not a list of names are one line naming the flag, exit 1", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [taskCall("deployer"), { text: "Deployed." }, { text: "All done." }] }));
  const dir = tempDir(t);
  write(join(dir, ".claude", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploys\n---\nRun make deploy, then check the dashboard.\n");
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const agents = JSON.stringify({ deployer: { description: "Deploys the service", prompt: "You deploy.", skills: ["deploy"] } });
  const good = await harness(["run", "--cwd", dir, "--agents", agents, "go"], env).result;
  assert.equal(good.code, 0, good.stderr);
  assert.match(JSON.stringify(fake.requests[1]!.body.messages), /Run make deploy, then check the dashboard\./);

  const bad = await harness(["run", "--cwd", dir, "--agents", JSON.stringify({ deployer: { description: "D", prompt: "P", skills: "deploy" } }), "go"], env).result;
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^harness: --agents: deployer: "skills" must be a list of skill names, such as \["deploy"\], not the text "deploy"/);
});
