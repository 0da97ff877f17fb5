// A hook handler's `if` (a permission rule) through `harness run`: the hook starts only for the
// tool calls the rule matches, beyond what its group's matcher selects.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../packages/cli/src/test-support.ts";

type Block = { type: string; tool_use_id?: string; content?: unknown };
const toolResult = (body: { messages: { content: unknown }[] }) => {
  const content = body.messages.at(-1)!.content as Block[];
  const result = content.find((block) => block.type === "tool_result")!;
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
};

test('a blocking PreToolUse hook with "if": "Bash(git commit *)" blocks git commit and lets echo run', async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ name: "Bash", input: { command: "echo hi" } }] },
        { toolUses: [{ name: "Bash", input: { command: "git commit -m x" } }] },
        { text: "done" },
      ],
    }),
  );
  const dir = tempDir(t);
  const log = join(dir, "hook.log");
  mkdirSync(join(dir, ".claude"));
  const guard = `cat >> ${log}; echo >> ${log}; echo "commits need a review first" >&2; exit 2`;
  writeFileSync(
    join(dir, ".claude", "settings.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", if: "Bash(git commit *)", command: guard }] }] } }),
  );
  const result = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /unknown key "if"/);

  assert.equal(fake.requests.length, 3);
  assert.match(toolResult(fake.requests[1]!.body as never), /^hi\b/);
  assert.match(toolResult(fake.requests[2]!.body as never), /commits need a review first/);
  // The hook started once, for the commit alone.
  const calls = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { tool_input: { command: string } });
  assert.deepEqual(calls.map((call) => call.tool_input.command), ["git commit -m x"]);
});

test('a hook whose "if" is not a permission rule is dropped with one warning naming it, not run for any call', async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [{ toolUses: [{ name: "Bash", input: { command: "echo hi" } }] }, { toolUses: [{ name: "Bash", input: { command: "echo again" } }] }, { text: "done" }],
    }),
  );
  const dir = tempDir(t);
  const log = join(dir, "hook.log");
  mkdirSync(join(dir, ".claude"));
  writeFileSync(
    join(dir, ".claude", "settings.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", if: "Bash(git commit *", command: `touch ${log}; exit 2` }] }] } }),
  );
  const result = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /hooks\.PreToolUse\[0\]\.hooks\[0\]\.if/);
  // Said once, as the settings are read, however many calls the hook's matcher selects.
  assert.equal(result.stderr.match(/no closing parenthesis/g)?.length, 1, result.stderr);
  assert.match(toolResult(fake.requests[1]!.body as never), /^hi\b/);
  assert.match(toolResult(fake.requests[2]!.body as never), /^again\b/);
  assert.equal(existsSync(log), false, "the hook never started");
});
