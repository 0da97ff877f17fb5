import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "@harness/protocol";
import { executeToolCalls } from "./execute-tool-calls.ts";
import { defineTool } from "../define-tool.ts";
import { STREAM_HEAD_CHARS, STREAM_TAIL_CHARS } from "./tool-output-stream.ts";
import { tempWorkspace } from "../testing/fixtures.ts";
import { bashTool } from "../tools/shell/bash.ts";
import type { Tool } from "../types.ts";
import { z } from "zod";

type Seen = { event: AgentEvent; at: number };

/** Runs one call of `tool` as the loop does, recording the events it emits and when. */
async function runCall(tool: Tool, input: Record<string, unknown>, cwd: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  await executeToolCalls([{ type: "tool_use", id: "toolu_1", name: tool.name, input }], {
    tools: new Map([[tool.name, tool]]),
    cwd,
    signal: new AbortController().signal,
    emit: (event) => seen.push({ event, at: Date.now() }),
  });
  return seen;
}

const outputs = (seen: Seen[]) => seen.flatMap(({ event, at }) => (event.type === "tool.output" ? [{ ...event, at }] : []));

test("a Bash command's output streams as tool.output events while it runs, before tool.completed", async (t) => {
  const cwd = await tempWorkspace(t);
  const seen = await runCall(bashTool, { command: "for i in 1 2 3 4; do echo $i; sleep 0.25; done" }, cwd);
  const streamed = outputs(seen);
  const completed = seen.findIndex(({ event }) => event.type === "tool.completed");
  assert.ok(streamed.length >= 3, `several progress events, got ${streamed.length}`);
  assert.ok(seen.slice(completed + 1).every(({ event }) => event.type !== "tool.output"), "nothing streams after the call completed");
  assert.equal(streamed.map((e) => e.text).join(""), "1\n2\n3\n4\n");
  assert.ok(streamed.every((e) => e.toolUseId === "toolu_1" && e.replace === undefined));
  assert.equal(streamed[0].text, "1\n", "the first line shows at once, not when the command ends");
  assert.deepEqual(seen[completed].event, { type: "tool.completed", toolUseId: "toolu_1", output: "1\n2\n3\n4", isError: false });
});

test("output reported in a burst is coalesced to at most one event per 100 ms, nothing lost", async (t) => {
  const cwd = await tempWorkspace(t);
  const chatty = defineTool({
    name: "Chatty",
    description: "test",
    parameters: z.object({}),
    async execute(_args, ctx) {
      for (let i = 0; i < 50; i++) {
        for (let k = 0; k < 20; k++) ctx.progress?.(`${i}.${k} `);
        await new Promise((r) => setTimeout(r, 10));
      }
      return { content: "done" };
    },
  });
  const streamed = outputs(await runCall(chatty, {}, cwd));
  let expected = "";
  for (let i = 0; i < 50; i++) for (let k = 0; k < 20; k++) expected += `${i}.${k} `;
  assert.equal(streamed.map((e) => e.text).join(""), expected.slice(0, streamed.map((e) => e.text).join("").length), "in order, nothing doubled");
  assert.ok(streamed.length >= 3 && streamed.length <= 10, `about one event per 100 ms over ~600 ms, got ${streamed.length}`);
  for (let n = 1; n < streamed.length; n++) assert.ok(streamed[n].at - streamed[n - 1].at >= 90, "events at least ~100 ms apart");
});

test("a command printing megabytes streams only the first and latest characters, the middle said to be cut", async (t) => {
  const cwd = await tempWorkspace(t);
  const seen = await runCall(bashTool, { command: "for i in $(seq 1 5); do seq 1 100000; sleep 0.3; done; echo last-line" }, cwd);
  const streamed = outputs(seen);
  const bytes = streamed.reduce((sum, e) => sum + e.text.length, 0);
  assert.ok(bytes < 10 * (STREAM_HEAD_CHARS + STREAM_TAIL_CHARS + 200), `what streamed stays small (${bytes} characters for ~3.4 MB of output)`);
  const last = streamed.at(-1)!;
  assert.equal(last.replace, true, "once cut, the output so far replaces what was sent");
  assert.ok(last.text.startsWith("1\n2\n3\n"));
  assert.match(last.text, /\.\.\. \[[\d,]+ characters of output omitted\] \.\.\./);
  assert.ok(last.text.length <= STREAM_HEAD_CHARS + STREAM_TAIL_CHARS + 100);
  const completed = seen.find(({ event }) => event.type === "tool.completed")!.event;
  assert.match((completed as { output: string }).output, /last-line$/, "the call's own output is still its result");
});
