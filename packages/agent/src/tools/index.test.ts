import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { tempWorkspace } from "../testing/fixtures.ts";
import { builtinTools, createToolState, getTodos, NOT_READ_MESSAGE } from "./index.ts";

test("builtinTools has Claude Code's tools, each with an object schema", () => {
  const tools = builtinTools();
  assert.deepEqual(
    tools.map((tool) => tool.name).sort(),
    ["Bash", "BashOutput", "Edit", "Glob", "Grep", "KillShell", "MultiEdit", "NotebookEdit", "Read", "TodoWrite", "WebFetch", "WebSearch", "Write"],
  );
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, "object", tool.name);
    assert.ok(tool.description.length > 100, `${tool.name} has a real description`);
  }
});

test("builtinTools({ state }) gives every tool that state when the call brings none", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.writeFile(path.join(cwd, "a.txt"), "old\n");
  const state = createToolState();
  const tools = new Map(builtinTools({ state }).map((tool) => [tool.name, tool]));
  const ctx = { cwd, signal: new AbortController().signal, toolUseId: "toolu_1" };
  const todos = [{ content: "Do it", status: "pending" as const, activeForm: "Doing it" }];
  await tools.get("TodoWrite")!.execute({ todos }, ctx);
  assert.deepEqual(getTodos(state), todos);
  const refused = await tools.get("Edit")!.execute({ file_path: "a.txt", old_string: "old", new_string: "new" }, ctx);
  assert.deepEqual(refused, { content: NOT_READ_MESSAGE, isError: true });

  // A state in the call's context wins.
  const own = createToolState();
  await tools.get("TodoWrite")!.execute({ todos: [] }, { ...ctx, state: own });
  assert.deepEqual(getTodos(own), []);
  assert.deepEqual(getTodos(state), todos);
});
