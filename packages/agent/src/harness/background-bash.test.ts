// A running Bash call moved to the background by the user (Claude Code's Ctrl+B): the command goes
// on as a background shell, and the call answers at once with its id.
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { AgentEvent } from "@harness/protocol";
import { waitFor } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";
import { bashOutputTool } from "../tools/shell/bash-output.ts";
import { callWithState } from "../tools/test-helpers.ts";
import { createAgentResources } from "./resources.ts";
import { bashTool } from "../tools/shell/bash.ts";
import { createToolState, disposeToolState } from "../tools/state.ts";

/** A channel the test sends background requests into, as the runner does from POST …/background. */
function channel() {
  const listeners = new Set<(toolUseId: string | undefined) => boolean>();
  return {
    onBackground: (listener: (toolUseId: string | undefined) => boolean) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Whether some call moved (every listener hears it: without an id, all running calls move). */
    send: (toolUseId?: string) => [...listeners].map((listener) => listener(toolUseId)).some(Boolean),
    get listening() {
      return listeners.size;
    },
  };
}

/** The text of the tool_result for `id` in a request's last message. */
function resultText(messages: { role: string; content: unknown }[], id: string): string | undefined {
  const last = messages.at(-1);
  if (!last || !Array.isArray(last.content)) return undefined;
  const block = last.content.find((b: { type?: string; tool_use_id?: string }) => b.type === "tool_result" && b.tool_use_id === id);
  if (!block) return undefined;
  return typeof block.content === "string" ? block.content : block.content.map((part: { text?: string }) => part.text ?? "").join("");
}

test("a running Bash call moved to the background goes on as a background shell; the model reads its id at once and its output with BashOutput", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const bg = channel();
  const command = `echo $$ > pid; echo before; while [ ! -e go ]; do sleep 0.05; done; echo after`;
  let sent: boolean | undefined;
  const emit = (event: AgentEvent) => {
    // Its first output seen, the user sends it to the background; a call of another id moves nothing.
    if (event.type === "tool.output" && event.toolUseId === "toolu_bash" && sent === undefined) {
      assert.equal(bg.send("toolu_other"), false);
      sent = bg.send("toolu_bash");
    }
  };
  const events: AgentEvent[] = [];
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ id: "toolu_bash", name: "Bash", input: { command } }] }, { text: "It runs on." }], {
    onBackground: bg.onBackground,
    resources,
    permissionMode: "bypassPermissions",
    emit: (event) => {
      events.push(event);
      emit(event);
    },
  });
  assert.equal(sent, true);
  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "It runs on.");
  const text = resultText(provider.requests[1].messages as never, "toolu_bash") ?? "";
  const id = /^Command was manually backgrounded by user with ID: ([0-9a-f]{6})\. Read its output with BashOutput\b/.exec(text)?.[1];
  assert.ok(id, text);
  assert.ok(events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_bash" && !e.isError));
  assert.equal(bg.listening, 0, "the call stopped listening once it answered");
  assert.equal(bg.send(), false, "nothing left to move");

  // The very process goes on: it was not started again.
  const shell = resources.toolState.shells.get(id)!;
  assert.equal(shell.status, "running");
  assert.equal(shell.command, command);
  assert.equal(Number(await project.read("pid")), shell.child.pid);

  await fs.writeFile(path.join(project.root, "go"), "");
  let seen = "";
  await waitFor(async () => {
    seen += (await callWithState(bashOutputTool, { bash_id: id }, project.root, resources.toolState)).content;
    return /<status>completed<\/status>/.test(seen) ? true : undefined;
  }, "the command to finish");
  // The output printed before the move, and after it.
  assert.match(seen, /<stdout>\nbefore\n<\/stdout>[^]*<stdout>\nafter\n<\/stdout>/);
});

test("a Bash call that has finished, or a call of another tool, is not moved", async (t) => {
  const project = await tempProject(t);
  await project.write("a.txt", "hello\n");
  const bg = channel();
  let tried: boolean[] = [];
  const { result } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_quick", name: "Bash", input: { command: "echo quick" } }] },
      () => {
        tried = [bg.send("toolu_quick"), bg.send()];
        return { toolCalls: [{ id: "toolu_read", name: "Read", input: { file_path: path.join(project.root, "a.txt") } }] };
      },
      { text: "done" },
    ],
    { onBackground: bg.onBackground, permissionMode: "bypassPermissions" },
  );
  assert.equal(result.result, "done");
  assert.deepEqual(tried, [false, false]);
  assert.equal(bg.listening, 0);
});

test("/tasks lists the background shells with id, status, running time and command, without the model; /tasks kill <id> stops one (/bashes too)", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const options = { resources, permissionMode: "bypassPermissions" as const };
  const none = await runInProject(project, [], { ...options, prompt: "/tasks" });
  assert.match(none.result.result ?? "", /^No background shells/);

  await runInProject(project, [{ toolCalls: [{ id: "toolu_bg", name: "Bash", input: { command: "sleep 30", run_in_background: true } }] }, { text: "started" }], options);
  await runInProject(project, [{ toolCalls: [{ id: "toolu_done", name: "Bash", input: { command: "exit 2", run_in_background: true } }] }, { text: "started" }], options);
  const [sleeping, failed] = [...resources.toolState.shells.values()];
  await waitFor(() => failed!.status === "failed", "the second command to end");

  const listed = await runInProject(project, [], { ...options, prompt: "/tasks" });
  assert.equal(listed.provider.requests.length, 0, "no model call");
  const text = listed.result.result ?? "";
  assert.match(text, /^Background shells: 1 running of 2\n\n/);
  assert.match(text, new RegExp(`^  ${sleeping!.id}  running\\s+\\d+s\\s+sleep 30$`, "m"));
  assert.match(text, new RegExp(`^  ${failed!.id}  failed \\(exit 2\\)\\s+\\d+s\\s+exit 2$`, "m"));
  assert.match(text, /\/tasks kill <id> stops one/);

  const killed = await runInProject(project, [], { ...options, prompt: `/bashes kill ${sleeping!.id}` });
  assert.equal(killed.result.result, `Killed background shell ${sleeping!.id}: sleep 30`);
  assert.equal(sleeping!.status, "killed");
  const again = await runInProject(project, [], { ...options, prompt: `/tasks kill ${failed!.id}` });
  assert.match(again.result.result ?? "", /is not running \(failed \(exit 2\)\): nothing to kill/);
  const unknown = await runInProject(project, [], { ...options, prompt: "/tasks kill nope" });
  assert.match(unknown.result.result ?? "", /^No background shell "nope"\. Background shells: 0 running of 2/);
  const bad = await runInProject(project, [], { ...options, prompt: "/tasks stop it" });
  assert.match(bad.result.result ?? "", /^\/tasks takes nothing, or kill <id>/);
});

test("a request sent while the call is still checked (the run's checkpoint), before its command has started, moves it once it starts", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const bg = channel();
  let sent: boolean | undefined;
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_bash", name: "Bash", input: { command: "sleep 30" } }] }, { text: "ok" }], {
    onBackground: bg.onBackground,
    resources,
    permissionMode: "bypassPermissions",
    beforeChanges: async (toolUseId) => {
      if (toolUseId === "toolu_bash") sent = bg.send();
    },
  });
  assert.equal(sent, true);
  assert.match(resultText(provider.requests[1].messages as never, "toolu_bash") ?? "", /^Command was manually backgrounded by user with ID: [0-9a-f]{6}\./);
  assert.equal([...resources.toolState.shells.values()][0]?.status, "running");
});

test("a command the run's cancel has just killed is not moved: the call answers as interrupted, no shell is left", async (t) => {
  const project = await tempProject(t);
  const state = createToolState();
  t.after(() => disposeToolState(state));
  const controller = new AbortController();
  let listener: (() => boolean) | undefined;
  let moved: boolean | undefined;
  const result = await bashTool.execute(
    { command: "echo started; sleep 30" },
    {
      cwd: project.root,
      signal: controller.signal,
      toolUseId: "toolu_bash",
      state,
      onBackground: (heard) => ((listener = heard), () => (listener = undefined)),
      progress: () => {
        if (moved !== undefined) return;
        // Esc, then Ctrl+B before the killed command's exit is seen.
        controller.abort();
        moved = listener!();
      },
    },
  );
  assert.equal(moved, false);
  assert.equal(result.isError, true);
  assert.match(String(result.content), /interrupted/i);
  assert.equal(state.shells.size, 0);
});
