// `harness run --output-format stream-json`: each reply of a sub-agent (a Task call's) is an
// `assistant` line with the Task call's id as its parent_tool_use_id, written as soon as the reply
// is complete, as Claude Code writes it: before the SubagentStop hooks that follow it, before the
// Task's tool_result and the main agent's next reply, each reply once and on its own.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic, type RecordedRequest } from "@harness/test-utils";
import { harness, streamLinesOf, tempDir, withFake } from "../../test-support.ts";

const TASK = { id: "toolu_task", name: "Task", input: { description: "Look around", prompt: "Find the file.", subagent_type: "general-purpose" } };

/** Whether `request` is the sub-agent's: its conversation starts with the Task's prompt. */
const fromSubagent = (request: RecordedRequest) => JSON.stringify(request.body.messages[0]).includes("Find the file.");

/** A model whose main agent says a word and calls Task, whose sub-agent says a word and runs Bash,
 * then replies `subReplies` one after another (a SubagentStop hook asks for the ones after the
 * first), and whose main agent then answers. */
function model(subReplies: string[]) {
  let main = 0;
  let sub = 0;
  return startFakeAnthropic({
    respond: (request) => {
      if (fromSubagent(request)) {
        sub++;
        return sub === 1 ? { text: "Looking first.", toolUses: [{ id: "toolu_bash", name: "Bash", input: { command: "echo hi" } }] } : { text: subReplies[sub - 2] ?? "Nothing more." };
      }
      main++;
      return main === 1 ? { text: "Let me delegate.", toolUses: [TASK] } : { text: "All done." };
    },
  });
}

/** A project whose SubagentStop hook runs `command`, and whose Bash calls are allowed. */
function project(t: { after(fn: () => unknown): void }, command: string): string {
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash"] }, hooks: { SubagentStop: [{ hooks: [{ type: "command", command }] }] } }));
  return dir;
}

/** Claude Code's lines that say the order: each assistant and user line (with the agent it comes
 * from: "sub" for the Task's sub-agent), each SubagentStop hook line, the result. */
function order(stdout: string): string[] {
  return streamLinesOf(stdout).flatMap((line) => {
    const who = line.parent_tool_use_id === "toolu_task" ? "sub" : line.parent_tool_use_id === null ? "main" : `parent ${line.parent_tool_use_id}`;
    if (line.type === "assistant" || line.type === "user") {
      return line.message.content.map((block: { type: string; text?: string; name?: string; tool_use_id?: string }) => {
        const what = block.type === "text" ? block.text : block.type === "tool_use" ? `tool_use ${block.name}` : `tool_result ${block.tool_use_id}`;
        return `${who} ${line.type} ${what}`;
      });
    }
    if (line.type === "system" && line.hook_event === "SubagentStop") return [line.subtype];
    if (line.type === "result") return ["result"];
    return [];
  });
}

const run = (dir: string, url: string, extra: string[], onStdout?: (text: string) => void) =>
  harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "stream-json", "--verbose", ...extra, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: url, HOME: dir }, { ...(onStdout && { onStdout }) })
    .result;

test("each of a sub-agent's replies is its own assistant line, before the SubagentStop hook's lines, the Task's result and the main agent's next reply", async (t) => {
  const fake = await withFake(t, model(["Found it.", "One thing more."]));
  const once = `if [ -e blocked ]; then exit 0; fi; touch blocked; echo '{"decision":"block","reason":"Say one thing more."}'`;
  const dir = project(t, once);
  const { code, stdout, stderr } = await run(dir, fake.url, ["--include-hook-events"]);
  assert.equal(code, 0, stderr);
  assert.deepEqual(
    order(stdout),
    [
      "main assistant Let me delegate.",
      "main assistant tool_use Task",
      "sub assistant Looking first.",
      "sub assistant tool_use Bash",
      "sub user tool_result toolu_bash",
      "sub assistant Found it.",
      "hook_started",
      "hook_response",
      "sub assistant One thing more.",
      "hook_started",
      "hook_response",
      "main user tool_result toolu_task",
      "main assistant All done.",
      "result",
    ],
    stdout,
  );
});

test("a sub-agent's last reply is on stdout while its SubagentStop hook still runs, once", async (t) => {
  const fake = await withFake(t, model(["Found it."]));
  // The hook waits (up to 5 s) for the test to have read the reply's assistant line (not the
  // runner protocol's assistant.delta beside it).
  const dir = project(t, `for i in $(seq 100); do [ -e seen ] && exit 0; sleep 0.05; done; touch waited-in-vain`);
  const seen = join(dir, "seen");
  const { code, stdout, stderr } = await run(dir, fake.url, [], (text) => {
    if (!existsSync(seen) && text.includes('{"type":"text","text":"Found it."}')) writeFileSync(seen, "");
  });
  assert.equal(code, 0, stderr);
  assert.ok(!existsSync(join(dir, "waited-in-vain")), `the reply's line came only after the SubagentStop hook gave up waiting for it:\n${stdout}`);
  assert.deepEqual(
    order(stdout).filter((line) => line.startsWith("sub assistant") || line.includes("tool_result toolu_task")),
    ["sub assistant Looking first.", "sub assistant tool_use Bash", "sub assistant Found it.", "main user tool_result toolu_task"],
    stdout,
  );
});
