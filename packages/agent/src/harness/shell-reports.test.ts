// A run reports the conversation's background shells (shells.changed) as it starts and as they
// change, and takes the user's kill of one while it goes on.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent, BackgroundShellInfo, KillShellAnswer } from "@harness/protocol";
import { waitFor } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";
import { createAgentResources } from "./resources.ts";

type Lists = BackgroundShellInfo[][];

function shellLists(events: AgentEvent[]): Lists {
  return events.flatMap((event) => (event.type === "shells.changed" ? [event.shells] : []));
}

test("a run sends the shells as one starts and ends, brings them up to date as the next run starts, and kills one the user names", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const options = { resources, permissionMode: "bypassPermissions" as const };
  const first: AgentEvent[] = [];
  const none = await runInProject(project, [{ text: "nothing" }], { ...options, emit: (event) => first.push(event) });
  assert.equal(none.result.stopReason, "end_turn");
  assert.deepEqual(shellLists(first), [], "no shells, nothing sent");

  const second: AgentEvent[] = [];
  await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_short", name: "Bash", input: { command: "exit 3", run_in_background: true } }] },
      { toolCalls: [{ id: "toolu_long", name: "Bash", input: { command: "sleep 30", run_in_background: true } }] },
      { text: "started" },
    ],
    { ...options, emit: (event) => second.push(event) },
  );
  const [short, long] = [...resources.toolState.shells.values()];
  await waitFor(() => short!.status === "failed", "the short command to end");
  const lists = shellLists(second);
  assert.deepEqual(lists[0], [{ id: short!.id, command: "exit 3", status: "running", startedAt: short!.startedAt.getTime() }]);
  const last = lists.at(-1)!;
  assert.deepEqual(last.map((s) => s.id), [short!.id, long!.id]);
  assert.equal(last[1]!.status, "running");

  // Between runs nobody hears; the next run starts with the list as it stands, and a kill by id
  // while it goes on stops the shell, the list saying so.
  const third: AgentEvent[] = [];
  const kills = new Set<(shellId: string) => KillShellAnswer>();
  let answers: KillShellAnswer[] = [];
  await runInProject(project, [{ toolCalls: [{ id: "toolu_wait", name: "Bash", input: { command: "sleep 0.3" } }] }, { text: "done" }], {
    ...options,
    onKillShell: (listener) => {
      kills.add(listener);
      return () => kills.delete(listener);
    },
    emit: (event) => {
      third.push(event);
      if (event.type === "tool.started" && event.toolUseId === "toolu_wait") answers = [...kills].flatMap((kill) => [kill("nope"), kill(short!.id), kill(long!.id)]);
    },
  });
  const started = shellLists(third)[0]!;
  assert.deepEqual(started.find((s) => s.id === short!.id), { id: short!.id, command: "exit 3", status: "failed", startedAt: short!.startedAt.getTime(), endedAt: short!.endedAt!.getTime(), exitCode: 3 });
  assert.deepEqual(answers.map((a) => a.outcome), ["unknown", "not-running", "killed"]);
  assert.equal(answers[2]!.message, `Killed background shell ${long!.id}: sleep 30`);
  assert.equal(shellLists(third).at(-1)!.find((s) => s.id === long!.id)?.status, "killed");
  assert.equal(kills.size, 0, "the run stops listening as it ends");
});
