// Prompt and agent hooks in whole runs: the model asked, what its verdict does, and what it costs.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { systemText, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import { scriptedProvider } from "../../testing/scripted-provider.ts";
import { AGENT_HOOK_SYSTEM_PROMPT, hookEvaluator, PROMPT_HOOK_SYSTEM_PROMPT } from "./evaluator.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

test("a PreToolUse prompt hook that says no keeps the command from running and ends the turn, telling the user why", async (t) => {
  const project = await tempProject(t);
  await project.settings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "prompt", prompt: "Does this command delete files? $ARGUMENTS" }] }] } });
  const { provider, result, events } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_rm", name: "Bash", input: { command: "touch made.txt && rm -rf src" } }] },
      { text: '{"ok": false, "reason": "It deletes src."}', usage: { inputTokens: 300, outputTokens: 12 } },
    ],
    { permissionMode: "bypassPermissions", model: "claude-sonnet-4-6" },
  );

  assert.equal(await project.exists("made.txt"), false, "the command did not run");
  assert.equal(result.stopReason, "error");
  assert.equal(result.errorMessage, "It deletes src.");
  assert.equal(provider.requests.length, 2, "the model is not asked again");
  const asked = provider.requests[1]!;
  assert.equal(asked.model, "claude-haiku-4-5", "Claude Code's small fast model by default");
  assert.equal(asked.system, PROMPT_HOOK_SYSTEM_PROMPT);
  assert.equal(asked.tools, undefined);
  const question = String(asked.messages[0]!.content);
  assert.match(question, /^Does this command delete files\? \{.*"tool_name":"Bash".*"command":"touch made\.txt && rm -rf src"/);
  assert.equal(result.usage.inputTokens, 10 + 300, "the hook's call is counted in the run's usage");
  assert.equal(result.turns.length, 1, "but not as a turn of the conversation");
  assert.deepEqual(
    events.flatMap((e) => (e.type === "call.completed" ? [e] : [])),
    [
      { type: "call.completed", usage: { ...result.turns[0], costUsd: result.turns[0]!.costUsd } },
      { type: "call.completed", side: true, usage: { inputTokens: 300, outputTokens: 12, costUsd: result.usage.costUsd! - (result.turns[0]!.costUsd ?? 0) } },
    ],
    "reported as it ends, as a call beside the conversation (no measure of the context's fill)",
  );
  const [refused] = resultsIn(result.transcript.at(-1) as ModelMessage);
  assert.equal(refused!.is_error, true);
  assert.match(String(refused!.content), /It deletes src\./);
  assert.ok(!events.some((e) => e.type === "assistant.delta" && e.text.includes('"ok"')), "the verdict is not shown as the agent's text");
});

test("a Stop prompt hook that says no sends the agent back to work, and its yes lets it stop", async (t) => {
  const project = await tempProject(t);
  await project.settings({ hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "Has the assistant run the tests? $ARGUMENTS", model: "my-checker" }] }] } });
  const { provider, result } = await runInProject(project, [
    { text: "I changed the parser." },
    { text: '{"ok": false, "reason": "Run the tests before you stop."}' },
    { text: "Tests pass." },
    { text: '{"ok": true}' },
  ]);

  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "Tests pass.");
  assert.deepEqual(
    provider.requests.map((r) => r.model),
    ["test-model", "my-checker", "test-model", "my-checker"],
  );
  const third = withoutCacheMarks(provider.requests[2]!.messages);
  assert.match(JSON.stringify(third.at(-1)), /Run the tests before you stop\./);
  assert.match(String(provider.requests[3]!.messages[0]!.content), /"stop_hook_active":true/);
});

test("an agent hook looks at the project with read-only tools, silently and without firing hooks, before its verdict", async (t) => {
  const project = await tempProject(t);
  await project.write("TODO.md", "- [ ] write the changelog\n");
  const fired = `${project.root}/fired.log`;
  const log = await project.hook("log.sh", `cat > /dev/null\necho fired >> "${fired}"`);
  await project.settings({
    hooks: {
      PreToolUse: [{ hooks: [{ type: "command", command: log }] }],
      Stop: [{ hooks: [{ type: "agent", prompt: "Is every item of TODO.md done?" }] }],
    },
  });
  const { provider, result, events } = await runInProject(project, [
    { text: "All done." },
    { toolCalls: [{ id: "toolu_look", name: "Read", input: { file_path: "TODO.md" } }] },
    { text: '{"ok": false, "reason": "The changelog is not written."}' },
    { text: "Changelog written." },
    { toolCalls: [{ id: "toolu_look2", name: "Glob", input: { pattern: "*.md" } }] },
    { text: '{"ok": true}' },
  ]);

  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "Changelog written.");
  const agentRequest = provider.requests[1]!;
  assert.ok(systemText(agentRequest).startsWith(AGENT_HOOK_SYSTEM_PROMPT));
  assert.deepEqual(agentRequest.tools?.map((tool) => tool.name).sort(), ["Glob", "Grep", "Read"]);
  const [read] = resultsIn(withoutCacheMarks(provider.requests[2]!.messages).at(-1));
  assert.match(String(read!.content), /write the changelog/);
  assert.match(JSON.stringify(withoutCacheMarks(provider.requests[3]!.messages).at(-1)), /The changelog is not written\./);
  assert.equal(await project.exists("fired.log"), false, "the agent's own calls fire no hooks");
  assert.ok(!events.some((e) => e.type === "tool.started"), "the agent's calls are not the conversation's");
  assert.equal(result.usage.inputTokens, 6 * 10);
});

test("a prompt hook whose model cannot be used says why, and a run on another provider asks its own model", async () => {
  const provider = scriptedProvider([{ text: '{"ok": true}' }]);
  const deps = { options: { prompt: "", cwd: "/w", signal: new AbortController().signal, emit: () => {}, env: {} }, record: () => {} };
  const unusable = hookEvaluator({ ...deps, current: () => ({ model: "claude-sonnet-4-6", provider }) });
  const answer = await unusable({ kind: "prompt", prompt: "ok?", model: "nosuch/model", signal: new AbortController().signal });
  assert.ok("error" in answer);
  assert.match(answer.error, /^its model nosuch\/model cannot be used: .*nosuch/);

  const onOpenAI = hookEvaluator({ ...deps, current: () => ({ model: "gpt-5", provider }) });
  assert.deepEqual(await onOpenAI({ kind: "prompt", prompt: "ok?", signal: new AbortController().signal }), { text: '{"ok": true}' });
  assert.equal(provider.requests[0]!.model, "gpt-5", "haiku stands for a Claude model only on a Claude run");
});
