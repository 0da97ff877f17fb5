// What the claude-code backend shows of Claude Code's own words (a failed MCP server, its stderr)
// hides the secrets the run knows: its environment's, its settings' env, its MCP servers' values.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeCodeBackend } from "./claude-code.ts";
import { recordRun, ZERO_TOTALS } from "./store.ts";
import { drivenContext, fakeForClaudeCode, NO_CLAUDE_CODE, runnerEnvFor, tempDirs } from "./test-support.ts";

const timeout = 60_000;

/** An MCP server that fails to start, its error quoting a secret of its own env, of the settings'
 * env, of the process's environment by name, and one after a flag. */
const LEAKY_SERVER = [
  "const say = (k) => process.env[k];",
  "const message = `refused ${say('SERVICE_CREDENTIAL')} for ${say('MY_SERVICE_TOKEN')} as ${say('DEPLOY_PASSWORD')} (--api-key flagkey-s3cret-4)`;",
  "console.log(JSON.stringify({ jsonrpc: '2.0', id: 0, error: { code: -1, message } }));",
  "setTimeout(() => process.exit(3), 500);",
].join("\n");

test("the notice of an MCP server that failed, as Claude Code reports it, names it without the secrets its error quotes", { skip: NO_CLAUDE_CODE, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, { replies: [{ text: ["ok"] }] });
  const dirs = tempDirs(t);
  writeFileSync(join(dirs.workspace, "leaky.cjs"), LEAKY_SERVER);
  const leaky = { command: process.execPath, args: [join(dirs.workspace, "leaky.cjs")], env: { SERVICE_CREDENTIAL: "credential9s3cret0123456789" } };
  writeFileSync(join(dirs.workspace, ".mcp.json"), JSON.stringify({ mcpServers: { leaky } }));
  mkdirSync(join(dirs.workspace, ".claude"));
  const settings = { enableAllProjectMcpServers: true, env: { MY_SERVICE_TOKEN: "settingstoken-s3cret-8" } };
  writeFileSync(join(dirs.workspace, ".claude", "settings.json"), JSON.stringify(settings));
  const run = drivenContext(dirs);
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake), extraEnv: { DEPLOY_PASSWORD: "deploypass-s3cret-9" } });
  const outcome = await backend.run({ prompt: "hello" }, run.ctx);

  assert.ok(outcome.ok, JSON.stringify(outcome));
  const notices = run.events.flatMap((e) => (e.type === "notice" ? [e.message] : []));
  assert.ok(
    notices.some((n) => /^MCP server leaky failed: refused .* for .* as \*\*\* \(--api-key \*\*\*\)$/.test(n)),
    `the failure is told: ${notices.join(" | ")}`,
  );
  assert.doesNotMatch(JSON.stringify(run.events), /s3cret/, "no secret in what the run showed");
});

test("a Claude Code that dies quoting secrets on its stderr fails the run without them", async (t) => {
  const dirs = tempDirs(t);
  const executable = join(dirs.workspace, "claude");
  writeFileSync(executable, `#!/bin/sh\necho "fatal: the key $ANTHROPIC_API_KEY was refused (--token=tok-s3cret-5)" >&2\nexit 1\n`);
  chmodSync(executable, 0o755);
  const run = drivenContext(dirs);
  const backend = claudeCodeBackend({ executable, runnerEnv: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "apikey-s3cret-0123" } });
  const outcome = await backend.run({ prompt: "hello" }, run.ctx);

  assert.equal(outcome.ok, false);
  assert.match(outcome.ok ? "" : outcome.message, /fatal: the key \*\*\* was refused \(--token=\*\*\*\)/);
  assert.doesNotMatch(JSON.stringify(outcome), /s3cret/);
});

test("a hook that blocks the prompt is told, its command and stderr without the settings' secrets, and so is the run's result of Claude Code's own words", { skip: NO_CLAUDE_CODE, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, { replies: [{ text: ["not asked"] }] });
  const dirs = tempDirs(t);
  mkdirSync(join(dirs.workspace, ".claude"));
  const hook = { type: "command", command: "echo refused $MY_SERVICE_TOKEN --token=tok-s3cret-2 >&2; exit 2" };
  writeFileSync(join(dirs.workspace, ".claude", "settings.json"), JSON.stringify({ env: { MY_SERVICE_TOKEN: "settingstoken-s3cret-8" }, hooks: { UserPromptSubmit: [{ hooks: [hook] }] } }));
  const run = drivenContext(dirs);
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "hello" }, run.ctx);

  assert.equal(fake.requests.length, 0, "the prompt never reached the model");
  const notices = run.events.flatMap((e) => (e.type === "notice" ? [e.message] : []));
  assert.ok(notices.some((n) => n.includes("refused *** --token=***")), notices.join(" | "));
  assert.ok(outcome.ok && outcome.result.includes("refused *** --token=***"), JSON.stringify(outcome));
  assert.doesNotMatch(JSON.stringify([run.events, outcome]), /s3cret/);
});

test("a rewind whose Claude Code dies quoting secrets on its stderr fails without them", async (t) => {
  const dirs = tempDirs(t);
  const executable = join(dirs.workspace, "claude");
  writeFileSync(executable, `#!/bin/sh\necho "fatal: rewind refused for $DEPLOY_PASSWORD (--token=tok-s3cret-5)" >&2\nexit 1\n`);
  chmodSync(executable, 0o755);
  const checkpoint = { userMessageId: "m1", sessionId: "s1", checkpointUuid: "u1", cwd: dirs.workspace, created: [] };
  await recordRun(dirs.stateDir, { sessionId: "s1", totals: ZERO_TOTALS, checkpoint });
  const backend = claudeCodeBackend({ executable, runnerEnv: { PATH: process.env.PATH }, extraEnv: { DEPLOY_PASSWORD: "deploypass-s3cret-9" } });
  const failed = await backend.rewind!({ userMessageId: "m1", dryRun: true, ...dirs }).then(
    () => assert.fail("the rewind succeeded"),
    (err: Error) => err.message,
  );

  assert.match(failed, /fatal: rewind refused for \*\*\* \(--token=\*\*\*\)/);
  assert.doesNotMatch(failed, /s3cret/);
});
