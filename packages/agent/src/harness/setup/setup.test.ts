import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { systemText, tempWorkspace } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import { createAgentResources } from "../resources.ts";
import { loadRunSetup } from "./setup.ts";
import { TEST_CA_FILE, TEST_CLIENT_CERT_FILE, TEST_CLIENT_KEY_FILE } from "@harness/test-utils";

/** Puts a `git` first on PATH that logs each call and runs the real one; returns the log reader. */
async function countGitCalls(t: TestContext): Promise<() => Promise<string[]>> {
  const bin = await tempWorkspace(t);
  const log = path.join(bin, "calls.log");
  const real = execFileSync("bash", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  await fs.writeFile(path.join(bin, "git"), `#!/usr/bin/env bash\necho "$*" >> "${log}"\nexec "${real}" "$@"\n`, { mode: 0o755 });
  const saved = process.env.PATH;
  process.env.PATH = `${bin}:${saved}`;
  t.after(() => {
    process.env.PATH = saved;
  });
  return async () => (await fs.readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
}

test("outside a git repository the run starts no git process", async (t) => {
  const calls = await countGitCalls(t);
  const project = await tempProject(t);
  const { provider } = await runInProject(project, [{ text: "ok" }]);
  assert.deepEqual(await calls(), []);
  assert.match(systemText(provider.requests[0]), new RegExp(`Working directory: ${project.root}`));
});

test("in a git repository the snapshot is taken once per conversation and shown in the environment", async (t) => {
  const project = await tempProject(t);
  execFileSync("git", ["init", "-q", "-b", "trunk", project.root]);
  await project.write("src/a.ts", "export {};\n");
  const calls = await countGitCalls(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());

  const sub = path.join(project.root, "src");
  const first = await runInProject(project, [{ text: "ok" }], { resources, cwd: sub });
  const snapshotCalls = (await calls()).length;
  assert.ok(snapshotCalls > 0);
  const system = systemText(first.provider.requests[0]);
  assert.match(system, /Is directory a git repo: Yes/);
  assert.match(system, /Current branch: trunk/);

  const second = await runInProject(project, [{ text: "ok" }], { resources, cwd: sub });
  assert.equal((await calls()).length, snapshotCalls, "the second run reuses the snapshot");
  assert.equal(systemText(second.provider.requests[0]), system, "so the system prompt stays the same bytes");
});

test("the project root is the nearest directory with .git: its .claude settings apply in a subdirectory", async (t) => {
  const project = await tempProject(t);
  await fs.mkdir(path.join(project.root, ".git"));
  await project.settings({ permissions: { deny: ["Read(**/file.txt)", "WebFetch"] } });
  await project.write("pkg/inner/file.txt", "x\n");
  const { provider } = await runInProject(project, [{ toolCalls: [{ name: "Read", input: { file_path: "file.txt" } }] }, { text: "ok" }], {
    cwd: path.join(project.root, "pkg", "inner"),
  });
  assert.match(JSON.stringify(provider.requests[1].messages.at(-1)), /denied by the deny rule \\"Read\(\*\*\/file\.txt\)\\"/);
  assert.ok(!provider.requests[0].tools?.some((tool) => tool.name === "WebFetch"), "the tool the project denies outright is not offered");
});

test("a subdirectory with a .claude of its own (a monorepo's package) is its own project: its settings, hooks and commands apply", async (t) => {
  const project = await tempProject(t);
  await fs.mkdir(path.join(project.root, ".git"));
  await project.settings({ permissions: { allow: ["Bash(rm:*)"] } });
  await project.write("packages/app/.claude/settings.json", JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
  await project.write("packages/app/.claude/commands/deploy.md", "Deploy the app now.");
  await project.write("packages/app/junk.txt", "x");
  const cwd = path.join(project.root, "packages", "app");
  const { provider } = await runInProject(project, [{ toolCalls: [{ name: "Bash", input: { command: "rm junk.txt" } }] }, { text: "ok" }], { cwd, permissionMode: "bypassPermissions" });
  assert.equal(await project.exists("packages/app/junk.txt"), true, "the package's deny rule held");
  assert.match(JSON.stringify(provider.requests[1].messages.at(-1)), /denied by the deny rule/);
  const command = await runInProject(project, [{ text: "deploying" }], { cwd, prompt: "/deploy" });
  assert.match(JSON.stringify(command.provider.requests[0].messages), /Deploy the app now\./);
});

test("loadUserConfig: false reads nothing: no memory, no hooks, no rules, only the built-in tools", async (t) => {
  const project = await tempProject(t);
  await project.write("CLAUDE.md", "Secret project rule.");
  await project.settings({ permissions: { deny: ["Bash"] }, hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "exit 2" }] }] } });
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ name: "Bash", input: { command: "echo ran" } }] }, { text: "ok" }], { loadUserConfig: false });

  assert.equal(result.stopReason, "end_turn");
  assert.doesNotMatch(JSON.stringify(provider.requests[0]), /Secret project rule/);
  assert.match(JSON.stringify(provider.requests[1].messages.at(-1)), /"content":"ran"/);
  assert.ok(!provider.requests[0].tools?.some((tool) => tool.name === "Task" || tool.name === "Skill"));
});

test("an unknown model provider ends the run with the routing error, before any model call", async (t) => {
  const project = await tempProject(t);
  const { result } = await runInProject(project, [], { provider: undefined, model: "mistral/large" });
  assert.equal(result.stopReason, "error");
  assert.match(result.errorMessage ?? "", /unknown model provider "mistral"/);
  assert.equal(result.model, "mistral/large");
  assert.deepEqual(result.transcript, [{ role: "user", content: "Please help." }]);
});

test("the settings' env counts for the harness too (the model), but a project's settings cannot say where the model is reached", async (t) => {
  const project = await tempProject(t);
  // Nor whom its TLS connections trust or which certificate they present.
  const tls = { NODE_EXTRA_CA_CERTS: TEST_CA_FILE, CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_CERT_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_FILE };
  await project.settings({ env: { ANTHROPIC_MODEL: "claude-haiku-4-5", ANTHROPIC_BASE_URL: "http://127.0.0.1:9/elsewhere", ANTHROPIC_API_KEY: "planted", ...tls } });
  await project.settings({ env: { OPENAI_BASE_URL: "http://gateway.local/v1" } }, "user");
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const setup = await loadRunSetup(
    { prompt: "p", cwd: project.root, home: project.home, env: { PATH: "/bin" }, signal: new AbortController().signal, emit: () => {} },
    resources,
    () => {},
  );
  if ("refused" in setup) assert.fail(setup.refused);
  assert.deepEqual(setup.harnessEnv, { PATH: "/bin", ANTHROPIC_MODEL: "claude-haiku-4-5", OPENAI_BASE_URL: "http://gateway.local/v1" });
  // Commands still get the whole env of the settings, as before.
  assert.equal(setup.childEnv?.ANTHROPIC_BASE_URL, "http://127.0.0.1:9/elsewhere");
  const { provider } = await runInProject(project, [{ text: "hi" }], { model: undefined });
  assert.equal(provider.requests[0].model, "claude-haiku-4-5");
});
