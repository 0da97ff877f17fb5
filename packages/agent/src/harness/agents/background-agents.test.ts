// The Task tool's run_in_background and model, through the whole loop with a scripted model: the
// main agent and its sub-agents answered from scripts of their own, since they run side by side.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage, ModelRequest, ToolResultBlock } from "@harness/llm";
import { systemText, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import { scriptedProvider, type ScriptedProvider, type ScriptedStep } from "../../testing/scripted-provider.ts";

const isSubagent = (request: ModelRequest) => /carry out one task on its behalf/.test(systemText(request));

/** The main agent's requests answered by `main`, the sub-agents' by `sub`; a sub-agent's first
 * request waits for `gate` (so the main agent is known to go on while it has not finished). */
function routedProvider(main: ScriptedStep[], sub: ScriptedStep[], gate: Promise<unknown> = Promise.resolve()): ScriptedProvider & { main: ModelRequest[]; sub: ModelRequest[] } {
  const mainScript = scriptedProvider(main);
  const subScript = scriptedProvider(sub);
  const requests: ModelRequest[] = [];
  return {
    name: "scripted",
    requests,
    main: mainScript.requests,
    sub: subScript.requests,
    stream(request) {
      requests.push(request);
      if (!isSubagent(request)) return mainScript.stream(request);
      return (async function* () {
        await gate;
        yield* subScript.stream(request);
      })();
    },
  };
}

function lastText(request: ModelRequest | undefined): string {
  assert.ok(request, "expected a request");
  return JSON.stringify(withoutCacheMarks(request.messages).at(-1));
}

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

/** The background agent's id in the Task call's result. */
function launchedId(request: ModelRequest): string {
  const [block] = resultsIn(withoutCacheMarks(request.messages).at(-1));
  const id = /agentId: (agent_[\w-]+)/.exec(String(block?.content))?.[1];
  assert.ok(id, `no agentId in ${String(block?.content)}`);
  return id;
}

const backgroundTask = (id: string, prompt: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: "Task",
  input: { description: "Read the notes", prompt, subagent_type: "general-purpose", run_in_background: true, ...extra },
});

test("a Task call with run_in_background returns at once; the main agent goes on, and the sub-agent's result reaches it as a task-notification", async (t) => {
  const project = await tempProject(t);
  await project.write("notes.txt", "alpha\n");
  let mainWentOn!: () => void;
  const gate = new Promise<void>((resolve) => (mainWentOn = resolve));
  const provider = routedProvider(
    [
      { toolCalls: [backgroundTask("toolu_task", "What does notes.txt say?")], usage: { inputTokens: 100, outputTokens: 10 } },
      () => {
        mainWentOn();
        return { text: "I started an agent; I will report when it is done.", usage: { inputTokens: 110, outputTokens: 10 } };
      },
      { text: "notes.txt says alpha.", usage: { inputTokens: 130, outputTokens: 8 } },
    ],
    [
      { toolCalls: [{ id: "toolu_sub", name: "Read", input: { file_path: "notes.txt" } }], usage: { inputTokens: 40, outputTokens: 4 } },
      { text: "It says alpha.", usage: { inputTokens: 60, outputTokens: 6 } },
    ],
    gate,
  );
  const { result, events } = await runInProject(project, provider);

  assert.equal(result.stopReason, "end_turn", result.errorMessage);
  assert.equal(result.result, "notes.txt says alpha.");
  assert.equal(provider.main.length, 3);
  const [launch] = resultsIn(withoutCacheMarks(provider.main[1]!.messages).at(-1));
  assert.match(String(launch!.content), /^Async agent launched successfully\.\nagentId: agent_/);
  assert.match(String(launch!.content), /notified automatically when it completes/);
  const id = launchedId(provider.main[1]!);
  assert.doesNotMatch(JSON.stringify(provider.main[1]!.messages), /task-notification/, "the main agent went on before the sub-agent finished");

  const notification = lastText(provider.main[2]);
  assert.match(notification, new RegExp(`<task-notification>\\\\n<task-id>${id}</task-id>\\\\n<status>completed</status>`));
  assert.match(notification, /<summary>Agent \\"Read the notes\\" completed<\/summary>/);
  assert.match(notification, /<result>It says alpha\.<\/result>/);
  assert.match(notification, /<usage>total_tokens: 110\\ntool_uses: 1\\nduration_ms: \d+<\/usage>/);
  assert.deepEqual(result.usage, { inputTokens: 440, outputTokens: 38, unpricedCalls: 5 }, "the background agent's usage joins the run's");

  const fromSub = events.filter((e) => e.type !== "notice" && e.agentId !== undefined);
  assert.deepEqual(fromSub.map((e) => e.type), ["tool.started", "call.completed", "tool.completed", "assistant.delta", "call.completed"]);
  assert.ok(fromSub.every((e) => e.agentId === id && e.parentToolUseId === "toolu_task"), "its events carry the id the model was given");
  const taskDone = events.findIndex((e) => e.type === "tool.completed" && e.toolUseId === "toolu_task");
  assert.ok(taskDone >= 0 && taskDone < events.indexOf(fromSub[0]!), "the Task call completes before the sub-agent works");
  assert.ok(events.some((e) => e.type === "notice" && /background agent "Read the notes" \(agent_.*\) completed/.test(e.message)));
});

test("TaskOutput waits for a background agent and gives its result; the model then gets no notification of it", async (t) => {
  const project = await tempProject(t);
  const provider = routedProvider(
    [
      { toolCalls: [backgroundTask("toolu_task", "Count to 42")] },
      (request) => ({ toolCalls: [{ id: "toolu_out", name: "TaskOutput", input: { task_id: launchedId(request) } }] }),
      { text: "It counted to 42." },
    ],
    [{ text: "Done: 42" }],
  );
  const { result } = await runInProject(project, provider);
  assert.equal(result.stopReason, "end_turn", result.errorMessage);
  assert.equal(provider.main.length, 3, "no further turn for a notification");
  const [output] = resultsIn(withoutCacheMarks(provider.main[2]!.messages).at(-1));
  assert.equal(output!.is_error, undefined);
  assert.match(String(output!.content), /^<retrieval_status>success<\/retrieval_status>\n<task_id>agent_[\w-]+<\/task_id>\n<task_type>local_agent<\/task_type>\n<status>completed<\/status>\n<output>\nDone: 42\n<\/output>$/);
  assert.doesNotMatch(JSON.stringify(provider.main[2]!.messages), /task-notification/);
});

test("TaskOutput without blocking says a running agent is not ready; TaskStop stops it, and an unknown id is named", async (t) => {
  const project = await tempProject(t);
  const provider = routedProvider(
    [
      { toolCalls: [backgroundTask("toolu_task", "Wait forever")] },
      (request) => ({ toolCalls: [{ id: "toolu_peek", name: "TaskOutput", input: { task_id: launchedId(request), block: false } }] }),
      (request) => {
        const id = /<task_id>(agent_[\w-]+)<\/task_id>/.exec(JSON.stringify(request.messages))![1];
        return { toolCalls: [{ id: "toolu_stop", name: "TaskStop", input: { task_id: id } }, { id: "toolu_bad", name: "TaskOutput", input: { task_id: "agent_nope" } }] };
      },
      { text: "Stopped it." },
    ],
    [{ hang: true }],
  );
  const { result } = await runInProject(project, provider);
  assert.equal(result.stopReason, "end_turn", result.errorMessage);
  const [peek] = resultsIn(withoutCacheMarks(provider.main[2]!.messages).at(-1));
  assert.match(String(peek!.content), /^<retrieval_status>not_ready<\/retrieval_status>\n<task_id>agent_[\w-]+<\/task_id>\n<task_type>local_agent<\/task_type>\n<status>running<\/status>$/);
  const [stop, bad] = resultsIn(withoutCacheMarks(provider.main[3]!.messages).at(-1));
  assert.match(String(stop!.content), /^Stopped the background agent agent_[\w-]+ \(Read the notes\)\.$/);
  assert.equal(bad!.is_error, true);
  assert.match(String(bad!.content), /^No background task with ID "agent_nope"\. Background agents:\nagent_[\w-]+ \(killed\): Read the notes$/);
  assert.equal(provider.sub[0]!.signal?.aborted, true, "the stopped agent's model call was cancelled");
  assert.equal(provider.main.length, 4, "a stopped agent sends no notification");
});

test("cancelling the run stops its background agents", async (t) => {
  const project = await tempProject(t);
  const controller = new AbortController();
  const provider = routedProvider([{ toolCalls: [backgroundTask("toolu_task", "Wait forever")] }, { text: "Waiting for it." }], [
    () => {
      setTimeout(() => controller.abort(), 10);
      return { hang: true };
    },
  ]);
  const { result } = await runInProject(project, provider, { signal: controller.signal });
  assert.equal(result.stopReason, "aborted");
  assert.equal(provider.sub[0]!.signal?.aborted, true);
});

test("a Task call's model picks the sub-agent's model; one the settings' availableModels leave out is refused in words; bad fields are named", async (t) => {
  const project = await tempProject(t);
  await project.settings({ availableModels: ["sonnet", "haiku"] });
  const task = (id: string, extra: Record<string, unknown>) => ({ id, name: "Task", input: { description: "Look", prompt: "Look around", subagent_type: "general-purpose", ...extra } });
  const provider = routedProvider(
    [
      { toolCalls: [task("toolu_haiku", { model: "haiku" })] },
      { toolCalls: [task("toolu_opus", { model: "opus" }), task("toolu_bad", { model: "", run_in_background: "yes" })] },
      { text: "done" },
    ],
    [{ text: "Looked." }],
  );
  const { result } = await runInProject(project, provider, { model: "claude-sonnet-4-6" });
  assert.equal(result.stopReason, "end_turn", result.errorMessage);
  assert.equal(provider.sub.length, 1);
  assert.equal(provider.sub[0]!.model, "claude-haiku-4-5");
  const [opus, bad] = resultsIn(withoutCacheMarks(provider.main[2]!.messages).at(-1));
  assert.equal(opus!.is_error, true);
  assert.equal(
    String(opus!.content),
    'Cannot start the general-purpose agent: The model "opus" (claude-opus-4-6), the Task call\'s model, is not available: the settings\' availableModels allow only "sonnet", "haiku".',
  );
  assert.equal(bad!.is_error, true);
  assert.match(String(bad!.content), /parameter "model": must be sonnet, opus, haiku, inherit or a model id, not empty/);
  assert.match(String(bad!.content), /parameter "run_in_background" must be a boolean, but got string "yes"/);
});
