// What a run shows (its notices, the /mcp and /hooks reports) and `harness mcp list`: an MCP
// server's command line and stderr, and a failed hook's command and stderr, with their secrets
// hidden as a log hides them (hidden-secrets.ts), and the names the user acts on kept.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { SECRET_PROCESS_ENV, SECRET_SETTINGS_ENV, secretMcpServers, startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** A command hook with literal secrets in its command, which writes the settings' token on stderr
 * and exits 1. */
const FAILING_HOOK = `printf 'refused %s\\n' "$MY_SERVICE_TOKEN" >&2; exit 1 # --token=hooktoken-s3cret-10 -H "Authorization: Bearer hookbearer-s3cret-11"`;

/** A home whose user's MCP servers and settings (env, a failing UserPromptSubmit hook) hold secrets. */
function secretHome(t: Parameters<typeof tempDir>[0]): { home: string; project: string } {
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: secretMcpServers(home) }));
  const hooks = { UserPromptSubmit: [{ hooks: [{ type: "command", command: FAILING_HOOK }] }] };
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: SECRET_SETTINGS_ENV, hooks }));
  return { home, project };
}

test("harness run's notices of a failed MCP server and a failed hook show neither their secrets nor those their stderr echoes, and keep the flags', server's and hook's names", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "done" }] }));
  const { home, project } = secretHome(t);
  const env = { HOME: home, ANTHROPIC_API_KEY: "sk-ant-test-key", ANTHROPIC_BASE_URL: fake.url, ...SECRET_PROCESS_ENV };
  const { code, stdout, stderr } = await harness(["run", "--model", "claude-sonnet-4-6", "--", "hi"], env, { cwd: project }).result;
  assert.equal(code, 0, stderr);
  const shown = stdout + stderr;
  assert.doesNotMatch(shown, /s3cret/, "no secret");
  assert.match(shown, /MCP server leaky failed/);
  assert.match(shown, /exit(?:ed with)? code 1/);
  assert.match(shown, /args: --api-key \*\*\* --token=\*\*\* -H Authorization: Bearer \*\*\* --header X-Api-Key:\*\*\* --verbose/);
  assert.match(shown, /credential: \*\*\*/);
  assert.match(shown, /settings token: \*\*\*/);
  assert.match(shown, /password: \*\*\*/);
  assert.match(shown, /UserPromptSubmit hook `printf .* exit 1 # --token=\*\*\* -H "Authorization: Bearer \*\*\*"` failed with exit code 1: refused \*\*\*/);
});

test('harness run "/mcp" and "/hooks" show the servers\' stderr and the hooks\' commands without their secrets', async (t) => {
  const { home, project } = secretHome(t);
  const env = { HOME: home, ...SECRET_PROCESS_ENV };
  for (const report of ["/mcp", "/hooks"]) {
    const { code, stdout, stderr } = await harness(["run", "--", report], env, { cwd: project }).result;
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stdout + stderr, /s3cret/, `no secret in ${report}`);
    if (report === "/mcp") {
      assert.match(stdout, /leaky: failed: its process exited with code 1; its stderr ended with:\n +args: --api-key \*\*\* --token=\*\*\*/);
      assert.match(stdout, /credential: \*\*\*/);
      assert.match(stdout, /remote: failed/);
    } else {
      assert.match(stdout, /UserPromptSubmit/);
      assert.match(stdout, /--token=\*\*\*/);
    }
  }
});

test("harness mcp list shows each server's command line and a failed one's stderr without their secrets, keeping its name and flags", async (t) => {
  const { home, project } = secretHome(t);
  const { code, stdout, stderr } = await harness(["mcp", "list"], { HOME: home, ...SECRET_PROCESS_ENV }, { cwd: project }).result;
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stdout + stderr, /s3cret/, "no secret");
  const leaky = stdout.split("\n").find((line) => line.startsWith("leaky ")) ?? "";
  assert.match(leaky, /--api-key \*\*\* --token=\*\*\* -H '?Authorization: Bearer \*\*\*'? --header X-Api-Key:\*\*\* --verbose.*✗/);
  assert.match(stdout, /credential: \*\*\*/);
  assert.match(stdout, /^remote /m);
});

test("the notices of a sub-agent's own MCP servers that fail show none of their secrets", async (t) => {
  const task = { toolUses: [{ name: "Task", input: { description: "Do it", prompt: "Do the task.", subagent_type: "leaker" } }] };
  const fake = await withFake(t, startFakeAnthropic({ replies: [task, { text: "Sub done." }, { text: "All done." }] }));
  const dir = tempDir(t);
  const { leaky, remote } = secretMcpServers(dir);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  writeFileSync(join(dir, ".claude", "agents", "leaker.md"), `---\nname: leaker\ndescription: Leaks\nmcpServers: [{"leaky": ${JSON.stringify(leaky)}}, {"remote": ${JSON.stringify(remote)}}]\n---\nYou leak.\n`);
  const env = { ANTHROPIC_API_KEY: "sk-ant-test-key", ANTHROPIC_BASE_URL: fake.url };
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--", "go"], env).result;
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stdout + stderr, /s3cret/, "no secret");
  assert.match(stderr, /leaky/);
  assert.match(stderr, /credential: \*\*\*/);
});

test("a run that fails as its apiKeyHelper does says so without the secrets of the helper's command and stderr", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "unused" }] }));
  const dir = tempDir(t);
  const apiKeyHelper = `printf 'vault refused %s\\n' "$MY_SERVICE_TOKEN" >&2; exit 1 # --token=helpertoken-s3cret-12 --vault prod`;
  const settings = JSON.stringify({ env: SECRET_SETTINGS_ENV, apiKeyHelper });
  const env = { HOME: dir, ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "", ANTHROPIC_BASE_URL: fake.url };
  const { code, stdout, stderr } = await harness(["run", "--model", "claude-sonnet-4-6", "--settings", settings, "--", "hi"], env, { cwd: dir }).result;
  assert.notEqual(code, 0);
  assert.doesNotMatch(stdout + stderr, /s3cret/, "no secret");
  assert.match(stderr, /apiKeyHelper \(printf .* --token=\*\*\* --vault prod\) .*vault refused \*\*\*/);
});
