// POST /tools/invoke over real HTTP, with the builtin backend in a real workspace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunnerEvent, RunnerToolCall } from "@harness/protocol";
import { builtinBackend } from "../backends/builtin.ts";
import { RunnerHttpError } from "../client/client.ts";
import { collect, never, post, startRunner, tempDir, waitFor, type TestContext } from "../test-support.ts";

/** A runner on a fresh workspace, with an empty home so that no settings of this machine count. */
async function runnerIn(t: TestContext) {
  const root = tempDir(t, "harness-tool-call-");
  const workspace = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  const backend = builtinBackend({ sharedResources: true, env: { ...process.env, HOME: home } });
  const runner = await startRunner(t, { workspace, backend });
  t.after(() => backend.dispose?.());
  return { ...runner, workspace };
}

const call = (fields: Partial<RunnerToolCall> & Pick<RunnerToolCall, "toolName" | "input">): RunnerToolCall => ({ model: "test-model", ...fields });

function completedOf(events: RunnerEvent[]) {
  return events.find((e): e is Extract<RunnerEvent, { type: "tool.completed" }> => e.type === "tool.completed");
}

test("a Bash call runs in the workspace and its output comes back as the call's result", async (t) => {
  const { client, workspace } = await runnerIn(t);
  writeFileSync(join(workspace, "here.txt"), "");
  const events = await collect(client.invokeTool(call({ toolName: "Bash", input: { command: "ls; echo done" }, permissionMode: "bypassPermissions" }), { signal: never() }));
  assert.deepEqual(
    events.map((e) => e.type).filter((type) => type !== "tool.output"),
    ["run.started", "tool.started", "tool.completed", "run.completed"],
  );
  assert.equal(completedOf(events)?.output, "here.txt\ndone");
  assert.equal(completedOf(events)?.isError, false);
  const last = events.at(-1);
  assert.equal(last?.type === "run.completed" ? last.result : undefined, "here.txt\ndone");
});

test("a call a deny rule names is refused by it, without starting; one that would ask is said to need approval", async (t) => {
  const { client, workspace } = await runnerIn(t);
  const denied = await collect(client.invokeTool(call({ toolName: "Bash", input: { command: "rm -f x" }, runOptions: { rules: { deny: ["Bash(rm:*)"] } } }), { signal: never() }));
  assert.equal(denied.some((e) => e.type === "tool.started"), false);
  assert.equal(completedOf(denied)?.denied, true);
  assert.equal(completedOf(denied)?.needsApproval, undefined);
  assert.match(completedOf(denied)!.output, /Bash\(rm:\*\)/);
  const asked = await collect(client.invokeTool(call({ toolName: "Write", input: { file_path: join(workspace, "a.txt"), content: "x" } }), { signal: never() }));
  assert.equal(completedOf(asked)?.needsApproval, true);
});

test("an unknown tool is 404, an input the tool refuses and a bad body are 400 naming the field", async (t) => {
  const { url } = await runnerIn(t);
  const unknown = await post(`${url}/tools/invoke`, { toolName: "Nope", input: {} });
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error!, /no tool "Nope"/);
  const bad = await post(`${url}/tools/invoke`, { toolName: "Bash", input: { command: ["ls"] } });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error!, /parameter "command" must be a string/);
  const shape = await post(`${url}/tools/invoke`, { toolName: "Bash", input: "ls" });
  assert.equal(shape.status, 400);
  assert.match(shape.body.error!, /input/);
  const extra = await post(`${url}/tools/invoke`, { toolName: "Bash", input: {}, prompt: "hi" });
  assert.equal(extra.status, 400);
});

test("closing the request kills the command; a call while another is in flight is refused as busy", async (t) => {
  const { client, url, workspace } = await runnerIn(t);
  const controller = new AbortController();
  const events: RunnerEvent[] = [];
  const reading = (async () => {
    for await (const event of client.invokeTool(call({ toolName: "Bash", input: { command: "echo $$ > pid.txt; echo started; sleep 300" }, permissionMode: "bypassPermissions" }), { signal: controller.signal })) {
      events.push(event);
    }
  })().catch(() => undefined);
  await waitFor(() => events.some((e) => e.type === "tool.output" && e.text.includes("started")), "the command's output");
  const second = await post(`${url}/tools/invoke`, { toolName: "Bash", input: { command: "true" } });
  assert.equal(second.status, 409);
  const pid = Number(readFileSync(join(workspace, "pid.txt"), "utf8"));
  controller.abort();
  await reading;
  await waitFor(() => !alive(pid), "the command's process to be gone");
  await waitFor(async () => !(await client.health()).busy, "the runner to be free");
});

test("a refused call leaves the runner free", async (t) => {
  const { client } = await runnerIn(t);
  await assert.rejects(collect(client.invokeTool(call({ toolName: "Nope", input: {} }), { signal: never() })), (error: unknown) => error instanceof RunnerHttpError && error.status === 404);
  assert.equal((await client.health()).busy, false);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
