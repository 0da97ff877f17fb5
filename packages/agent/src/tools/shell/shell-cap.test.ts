// At most HARNESS_MAX_BACKGROUND_SHELLS background shells run at once in a conversation: one more
// is not started, and the model is told the limit and how to free a place (KillShell).
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { tempWorkspace, waitFor } from "../../testing/fixtures.ts";
import { bashTool } from "./bash.ts";
import { killShellTool } from "./kill-shell.ts";
import { DEFAULT_MAX_RUNNING_SHELLS, runningShellsLimit } from "./shell-cap.ts";
import { createToolState, disposeToolState } from "../state.ts";
import { callWithState } from "../test-helpers.ts";

function withLimit(t: TestContext, value: string): void {
  const before = process.env.HARNESS_MAX_BACKGROUND_SHELLS;
  process.env.HARNESS_MAX_BACKGROUND_SHELLS = value;
  t.after(() => {
    if (before === undefined) delete process.env.HARNESS_MAX_BACKGROUND_SHELLS;
    else process.env.HARNESS_MAX_BACKGROUND_SHELLS = before;
  });
}

test("one background shell past the limit is not started: the model is told the limit, the running ids and KillShell; a kill frees a place", async (t) => {
  withLimit(t, "2");
  const cwd = await tempWorkspace(t);
  const state = createToolState();
  t.after(() => disposeToolState(state));
  const call = (tool: typeof bashTool, input: Record<string, unknown>) => callWithState(tool, input, cwd, state);
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const out = await call(bashTool, { command: "sleep 300", run_in_background: true });
    ids.push(/ID: ([0-9a-f]{6})$/.exec(out.content)![1]!);
  }
  // One that has finished takes no place.
  const quick = await call(bashTool, { command: "sleep 300", run_in_background: true });
  assert.equal(quick.isError, true);
  assert.equal(
    quick.content,
    `The command was not started: 2 background shells are running already, the most one conversation may run at once (HARNESS_MAX_BACKGROUND_SHELLS=2). Stop one that is no longer needed with KillShell (running: ${ids.join(", ")}) first. Or run it without run_in_background.`,
  );
  assert.equal(state.shells.size, 2, "nothing was started");

  const killed = await call(killShellTool, { shell_id: ids[0]! });
  assert.match(killed.content, /^Successfully killed shell/);
  const third = await call(bashTool, { command: "sleep 300", run_in_background: true });
  assert.match(third.content, /^Command running in background with ID: [0-9a-f]{6}$/);
  assert.equal([...state.shells.values()].filter((s) => s.status === "running").length, 2);
});

test("finished shells take no place; a foreground command runs whatever the count", async (t) => {
  withLimit(t, "1");
  const cwd = await tempWorkspace(t);
  const state = createToolState();
  t.after(() => disposeToolState(state));
  const done = await callWithState(bashTool, { command: "true", run_in_background: true }, cwd, state);
  const id = /ID: ([0-9a-f]{6})$/.exec(done.content)![1]!;
  await waitFor(() => (state.shells.get(id)?.status === "completed" ? true : undefined), "the shell to finish");
  const running = await callWithState(bashTool, { command: "sleep 300", run_in_background: true }, cwd, state);
  assert.match(running.content, /^Command running in background/);
  const foreground = await callWithState(bashTool, { command: "echo still runs" }, cwd, state);
  assert.equal(foreground.content, "still runs");
});

test("HARNESS_MAX_BACKGROUND_SHELLS: unset is 32; a value that is not a whole number from 1 is refused naming it", async (t) => {
  assert.deepEqual(runningShellsLimit({}), { ok: true, limit: DEFAULT_MAX_RUNNING_SHELLS });
  assert.equal(DEFAULT_MAX_RUNNING_SHELLS, 32);
  assert.deepEqual(runningShellsLimit({ HARNESS_MAX_BACKGROUND_SHELLS: " 5 " }), { ok: true, limit: 5 });
  for (const bad of ["0", "-1", "2.5", "lots"]) {
    assert.deepEqual(runningShellsLimit({ HARNESS_MAX_BACKGROUND_SHELLS: bad }), {
      ok: false,
      error: `HARNESS_MAX_BACKGROUND_SHELLS must be a whole number of shells, at least 1, got ${JSON.stringify(bad)}`,
    });
  }
  withLimit(t, "none");
  const cwd = await tempWorkspace(t);
  const state = createToolState();
  t.after(() => disposeToolState(state));
  const out = await callWithState(bashTool, { command: "sleep 300", run_in_background: true }, cwd, state);
  assert.equal(out.isError, true);
  assert.match(out.content, /^The command was not started: HARNESS_MAX_BACKGROUND_SHELLS must be a whole number of shells, at least 1, got "none"/);
});

test("a running command the user moves to the background past the limit goes on in the foreground; its result tells the model why", async (t) => {
  withLimit(t, "1");
  const cwd = await tempWorkspace(t);
  const state = createToolState();
  t.after(() => disposeToolState(state));
  const first = await callWithState(bashTool, { command: "sleep 300", run_in_background: true }, cwd, state);
  const id = /ID: ([0-9a-f]{6})$/.exec(first.content)![1]!;
  let listener: (() => boolean) | undefined;
  let moved: boolean | undefined;
  const result = await bashTool.execute(
    { command: "echo started; sleep 0.3; echo finished" },
    {
      cwd,
      signal: new AbortController().signal,
      toolUseId: "toolu_bash",
      state,
      onBackground: (heard) => ((listener = heard), () => (listener = undefined)),
      progress: () => {
        if (moved === undefined) moved = listener!();
      },
    },
  );
  assert.equal(moved, false);
  assert.equal(result.isError, undefined);
  assert.equal(
    result.content,
    `started\nfinished\n\nThe user asked to move this command to the background, but it went on in the foreground: 1 background shell is running already, the most one conversation may run at once (HARNESS_MAX_BACKGROUND_SHELLS=1). Stop one that is no longer needed with KillShell (running: ${id}) first.`,
  );
  assert.equal(state.shells.size, 1);
});
