// `harness run`'s text output shows the todo list a TodoWrite call sets, as Claude Code does: "Update
// Todos", then each item under it, ☒ done and ☐ not yet; a call whose input is not a list shows as
// any call does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic, toolThenText } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const TODOS = [
  { content: "Write the parser", status: "completed", activeForm: "Writing the parser" },
  { content: "Test the parser", status: "in_progress", activeForm: "Testing the parser" },
  { content: "Document it", status: "pending", activeForm: "Documenting it" },
];

async function run(t: { after(fn: () => unknown): void }, input: Record<string, unknown>) {
  const dir = tempDir(t);
  const fake = await withFake(t, startFakeAnthropic({ replies: toolThenText("TodoWrite", input, "Planned.") }));
  const result = await harness(["run", "--cwd", dir, "--model", "claude-test", "plan the parser"], { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "Planned.\n");
  return result.stderr;
}

test("harness run shows a TodoWrite call as the list it sets, in order, marked without colour when piped", async (t) => {
  const stderr = await run(t, { todos: TODOS });
  assert.match(stderr, /^● Update Todos\n {2}⎿ {2}☒ Write the parser\n {5}☐ Test the parser\n {5}☐ Document it\n/m);
  assert.doesNotMatch(stderr, /Todos have been modified/, "the list stands for the tool's reply");
  assert.doesNotMatch(stderr, /\x1b\[/, "no colour when stderr is not a terminal");
});

test("a TodoWrite call whose input is not a list of todos shows its header and output as any call does", async (t) => {
  const stderr = await run(t, { todos: "write the parser" });
  assert.match(stderr, /^● TodoWrite\(\{"todos":"write the parser"\}\)\n {2}✗ {2}\S/m);
  assert.doesNotMatch(stderr, /Update Todos|☐/);
});
