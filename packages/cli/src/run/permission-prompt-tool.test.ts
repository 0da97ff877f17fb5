// `harness run --permission-prompt-tool mcp__server__tool`: calls that would need approval are
// asked of that MCP tool, as `claude -p` does, instead of being refused.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpTestServerCommand, startFakeAnthropic } from "@harness/test-utils";
import { parseArgs } from "../args.ts";
import { harness, SUB_AGENT_THEN_MAIN_BASH, tempDir, withFake } from "../test-support.ts";

/** A home whose user settings start the MCP test server as "gate". */
function homeWithGate(t: { after(fn: () => unknown): void }): string {
  const home = tempDir(t);
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ mcpServers: { gate: mcpTestServerCommand() } }));
  return home;
}

/** `harness run --permission-prompt-tool mcp__gate__<tool> go` in `dir`, against the fake model at
 * `modelUrl`, with the gate server in its user settings; `extra` goes before the prompt. */
function runWithGate(t: { after(fn: () => unknown): void }, dir: string, modelUrl: string, tool = "permission_prompt", extra: string[] = []) {
  return harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...extra, "--permission-prompt-tool", `mcp__gate__${tool}`, "go"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: modelUrl,
    HOME: homeWithGate(t),
  }).result;
}

test("--permission-prompt-tool: the MCP tool's answer decides: allowed with its updatedInput, or denied with its message", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_ok", name: "Bash", input: { command: "mkdir private && ls" } }, { id: "toolu_rm", name: "Bash", input: { command: "rm -rf build" } }] },
        { text: "Done." },
      ],
    }),
  );
  const dir = tempDir(t);
  const { code, stdout, stderr } = await runWithGate(t, dir, fake.url, "permission_prompt", ["--output-format", "json"]);
  assert.equal(code, 0, stderr);
  const results = JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1));
  assert.match(results, /public/, "the command ran as the tool changed it");
  assert.doesNotMatch(results, /private/);
  assert.match(results, /rm is not allowed here/, "the refusal carries the tool's message");
  const result = JSON.parse(stdout);
  assert.deepEqual(result.permission_denials, [{ tool_name: "Bash", tool_use_id: "toolu_rm", tool_input: { command: "rm -rf build" } }]);
});

test("--permission-prompt-tool: a tool the run does not have fails the run in one line, before any model call", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "never" }] }));
  const dir = tempDir(t);
  const { code, stderr } = await runWithGate(t, dir, fake.url, "missing");
  assert.equal(code, 1);
  assert.match(stderr, /--permission-prompt-tool: .*mcp__gate__missing/);
  assert.match(stderr, /mcp__gate__permission_prompt/, "it names the MCP tools there are");
  assert.equal(stderr.split("\n").filter((line) => line.startsWith("harness:")).length, 1, stderr);
  assert.equal(fake.requests.length, 0);
});

test("--permission-prompt-tool takes an MCP tool's name", () => {
  assert.deepEqual(parseArgs(["run", "--permission-prompt-tool", "Bash", "go"]), {
    kind: "usage-error",
    message: '--permission-prompt-tool takes an MCP tool\'s name (mcp__server__tool), not "Bash"',
    topic: "run",
  });
  const command = parseArgs(["run", "--permission-prompt-tool", "mcp__auth__prompt", "go"]);
  assert.equal(command.kind === "run" && command.permissionPromptTool, "mcp__auth__prompt");
});

test("--permission-prompt-tool: a session rule in the MCP tool's answer (updatedPermissions) to a sub-agent's call spares the main agent's later calls the prompt", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: SUB_AGENT_THEN_MAIN_BASH,
    }),
  );
  const dir = tempDir(t);
  const { code, stdout, stderr } = await runWithGate(t, dir, fake.url, "permission_prompt", ["--output-format", "json"]);
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout).permission_denials, [], "the tool was not asked about touch main.txt");
  for (const file of ["sub.txt", "main.txt"]) assert.ok(existsSync(join(dir, file)), file);
});

test("--permission-prompt-tool: a switch to bypassPermissions in the MCP tool's answer is refused in a run not started able to bypass, in a warning naming the tool", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_chmod", name: "Bash", input: { command: "chmod +x run.sh" } }] }, { text: "Done." }] }));
  const dir = tempDir(t);
  writeFileSync(join(dir, "run.sh"), "true\n");
  const { code, stderr } = await runWithGate(t, dir, fake.url);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /setMode bypassPermissions of the permission prompt tool mcp__gate__permission_prompt is refused.*--allow-dangerously-skip-permissions/);
});
