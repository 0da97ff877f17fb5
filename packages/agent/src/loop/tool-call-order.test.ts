import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { runAgent } from "./run-agent.ts";
import { callAccess, mustWaitFor } from "./tool-call-order.ts";
import { tempWorkspace } from "../testing/fixtures.ts";
import { scriptedProvider } from "../testing/scripted-provider.ts";
import { builtinTools } from "../tools/index.ts";

const tools = new Map(builtinTools().map((tool) => [tool.name, tool]));
const access = (name: string, args: Record<string, unknown>) => callAccess(tools.get(name)!, args, "/w");

test("a call waits for the earlier calls of its reply that write what it touches, or whose effects are unknown; commands do not wait for commands", () => {
  const reply = [
    access("Read", { file_path: "a.txt" }), // 0
    access("Read", { file_path: "/w/b.txt" }), // 1
    access("Edit", { file_path: "a.txt", old_string: "x", new_string: "y" }), // 2: after the Read of a.txt
    access("Grep", { pattern: "x" }), // 3: after the Edit
    access("Bash", { command: "ls -la" }), // 4: only reads: after the Edit
    access("Bash", { command: "make build" }), // 5: may write: after all but the other command
    access("Bash", { command: "make test" }), // 6: may write too, but runs with 4 and 5
    access("Read", { file_path: "b.txt" }), // 7: after the commands that may write
  ];
  assert.deepEqual(reply.map((_, i) => mustWaitFor(reply, i)), [[], [], [0], [2], [2], [0, 1, 2, 3], [0, 1, 2, 3], [5, 6]]);
  assert.deepEqual(mustWaitFor([undefined, access("Edit", { file_path: "a", old_string: "x", new_string: "y" })], 1), [], "a call that will not run holds nothing up");
});

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

test("calls of one reply that depend on each other take effect in the order they were written", async (t) => {
  const cwd = await tempWorkspace(t);
  await writeFile(path.join(cwd, "a.txt"), "hello\n");
  const provider = scriptedProvider([
    {
      toolCalls: [
        { id: "read", name: "Read", input: { file_path: "a.txt" } },
        { id: "edit", name: "Edit", input: { file_path: "a.txt", old_string: "hello", new_string: "HELLO" } },
        { id: "write", name: "Write", input: { file_path: "s.sh", content: "echo from-script\n" } },
        { id: "run", name: "Bash", input: { command: "bash s.sh && cat a.txt" } },
      ],
    },
    { text: "Done." },
  ]);
  const result = await runAgent({ prompt: "go", model: "m", cwd, provider, loadUserConfig: false, permissionMode: "bypassPermissions", signal: new AbortController().signal, emit: () => {} });
  assert.equal(result.stopReason, "end_turn");
  const results = resultsIn(provider.requests[1].messages.at(-1));
  assert.deepEqual(results.map((r) => r.tool_use_id), ["read", "edit", "write", "run"]);
  for (const r of results) assert.notEqual(r.is_error, true, JSON.stringify(r.content));
  assert.equal(results[3].content, "from-script\nHELLO");
});
