import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { z } from "zod";
import type { AgentEvent } from "@harness/protocol";
import { defineTool } from "../define-tool.ts";
import { runAgent } from "./run-agent.ts";
import { assertValidTranscript, processGone, tempWorkspace, waitFor } from "../testing/fixtures.ts";
import { scriptedProvider } from "../testing/scripted-provider.ts";
import type { RunAgentOptions } from "../types.ts";

/** The loop alone: no configuration is read, and every tool call runs. */
const LOOP_ONLY: Pick<RunAgentOptions, "loadUserConfig" | "permissionMode"> = { loadUserConfig: false, permissionMode: "bypassPermissions" };

test("cancelling during the model stream keeps the partial text and a transcript the next run can use", async (t) => {
  const cwd = await tempWorkspace(t);
  const controller = new AbortController();
  const provider = scriptedProvider([{ text: ["I will ", "start by"], hang: true }, { text: "Resumed." }]);
  const events: AgentEvent[] = [];
  const result = await runAgent({
    prompt: "do it",
    provider,
    ...LOOP_ONLY,
    model: "m",
    cwd,
    signal: controller.signal,
    emit: (event) => {
      events.push(event);
      if (events.length === 2) controller.abort();
    },
  });

  assert.equal(result.stopReason, "aborted");
  assert.equal(result.result, "I will start by");
  assert.deepEqual(result.transcript, [
    { role: "user", content: "do it" },
    { role: "assistant", content: [{ type: "text", text: "I will start by" }] },
  ]);

  const next = await runAgent({ prompt: "continue", history: result.transcript, provider, ...LOOP_ONLY, model: "m", cwd, signal: new AbortController().signal, emit: () => {} });
  assert.equal(next.stopReason, "end_turn");
  assertValidTranscript(next.transcript);
  assert.deepEqual(next.transcript.at(-2), { role: "user", content: "continue" });
});

test("cancelling after a tool call was announced answers it with Interrupted by user", async (t) => {
  const cwd = await tempWorkspace(t);
  const controller = new AbortController();
  const provider = scriptedProvider([{ text: "Writing.", toolCalls: [{ id: "toolu_1", name: "Write", input: { file_path: "a.txt", content: "x" } }], hang: true }]);
  const events: AgentEvent[] = [];
  const result = await runAgent({
    prompt: "write",
    provider,
    ...LOOP_ONLY,
    model: "m",
    cwd,
    signal: controller.signal,
    emit: (event) => {
      events.push(event);
      if (event.type === "tool.started") controller.abort();
    },
  });

  assert.equal(result.stopReason, "aborted");
  assertValidTranscript(result.transcript);
  assert.deepEqual(result.transcript.at(-1), {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Interrupted by user", is_error: true }],
  });
  assert.deepEqual(events.at(-1), { type: "tool.completed", toolUseId: "toolu_1", output: "Interrupted by user", isError: true });
  await assert.rejects(fs.stat(path.join(cwd, "a.txt")), "the tool must not have run");
});

test("cancelling during Bash kills the command and everything it started", async (t) => {
  const cwd = await tempWorkspace(t);
  const controller = new AbortController();
  const provider = scriptedProvider([
    {
      toolCalls: [
        { id: "toolu_sleep", name: "Bash", input: { command: "sleep 300 & echo $! > sleeper.pid; echo $$ > shell.pid; wait" } },
        { id: "toolu_quick", name: "Bash", input: { command: "echo quick" } },
      ],
    },
    { text: "never reached" },
  ]);
  const events: AgentEvent[] = [];
  const run = runAgent({ prompt: "sleep", provider, ...LOOP_ONLY, model: "m", cwd, signal: controller.signal, emit: (e) => events.push(e) });

  const readPid = async (name: string) => {
    const text = await fs.readFile(path.join(cwd, name), "utf8").catch(() => "");
    return /^\d+\n$/.test(text) ? Number(text) : undefined;
  };
  const sleeper = await waitFor(() => readPid("sleeper.pid"), "the command to start its child");
  const shell = await waitFor(() => readPid("shell.pid"), "the shell to record its pid");
  await waitFor(() => (events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_quick") ? true : undefined), "the quick command");
  assert.equal(await processGone(sleeper), false);
  controller.abort();
  const result = await run;

  assert.equal(result.stopReason, "aborted");
  assert.equal(provider.requests.length, 1, "no model call after the cancel");
  assertValidTranscript(result.transcript);
  assert.deepEqual(result.transcript.at(-1)?.content, [
    { type: "tool_result", tool_use_id: "toolu_sleep", content: "Interrupted by user", is_error: true },
    { type: "tool_result", tool_use_id: "toolu_quick", content: "quick" },
  ]);
  await waitFor(async () => ((await processGone(sleeper)) ? true : undefined), "the background sleep to be killed");
  await waitFor(async () => ((await processGone(shell)) ? true : undefined), "the shell to be killed");
});

test("a tool that ignores the signal cannot hold a cancelled run open", async (t) => {
  const cwd = await tempWorkspace(t);
  const controller = new AbortController();
  let release = () => {};
  t.after(() => release());
  const stubborn = defineTool({
    name: "Stubborn",
    description: "Never finishes on its own.",
    parameters: z.object({}),
    execute: () =>
      new Promise((resolve) => {
        release = () => resolve({ content: "late" });
      }),
  });
  const provider = scriptedProvider([{ toolCalls: [{ id: "toolu_1", name: "Stubborn" }] }]);
  const run = runAgent({
    prompt: "go",
    provider,
    ...LOOP_ONLY,
    model: "m",
    cwd,
    tools: [stubborn],
    signal: controller.signal,
    emit: (event) => {
      if (event.type === "tool.started") setImmediate(() => controller.abort());
    },
  });
  const result = await run;
  assert.equal(result.stopReason, "aborted");
  assert.deepEqual(result.transcript.at(-1)?.content, [{ type: "tool_result", tool_use_id: "toolu_1", content: "Interrupted by user", is_error: true }]);
});

test("cancelling between turns stops before the next model call", async (t) => {
  const cwd = await tempWorkspace(t);
  const controller = new AbortController();
  const provider = scriptedProvider([{ toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "echo hi" } }] }, { text: "never" }]);
  const result = await runAgent({
    prompt: "go",
    provider,
    ...LOOP_ONLY,
    model: "m",
    cwd,
    signal: controller.signal,
    emit: (event) => {
      if (event.type === "tool.completed") controller.abort();
    },
  });
  assert.equal(result.stopReason, "aborted");
  assert.equal(provider.requests.length, 1);
  assertValidTranscript(result.transcript);
  assert.deepEqual(result.transcript.at(-1)?.content, [{ type: "tool_result", tool_use_id: "toolu_1", content: "hi" }]);
});

test("a run started with an aborted signal returns at once without calling the model", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([{ text: "never" }]);
  const result = await runAgent({ prompt: "go", provider, ...LOOP_ONLY, model: "m", cwd, signal: AbortSignal.abort(), emit: () => {} });
  assert.equal(result.stopReason, "aborted");
  assert.equal(provider.requests.length, 0);
  assert.deepEqual(result.transcript, [{ role: "user", content: "go" }]);
});
