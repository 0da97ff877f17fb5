// The background shells end to end (client SDK → server → session → runner → agent): the state's
// `shells` shows them live while a run goes on, kill-shell stops one mid-run, and a background
// request for a Bash call the client shows as running before the call has started is held until it
// starts (or told of, when the call is refused instead).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHarnessClient } from "@harness/client";
import type { HarnessState } from "@harness/protocol";
import { startHarness } from "./e2e-commands-support.ts";

const callsOf = (s: HarnessState) => s.messages.at(-1)?.toolCalls ?? [];

test("Ctrl+B before the Bash call starts moves it once it does; the shells show live in the state and kill-shell stops one mid-run", async () => {
  const h = await startHarness();
  const SESSION = "shells";
  const client = createHarnessClient({ url: h.server.url, userId: "alice", sessionId: SESSION });
  const errors: string[] = [];
  client.on("error", (e) => errors.push(e.message));
  try {
    const watcher = "echo watching; while [ ! -e go ]; do sleep 0.1; done";
    const waiter = "while [ ! -e go2 ]; do sleep 0.1; done; echo waited";
    // The Bash call waits for the Write before it (it may run what was written), and the Write waits
    // for its approval: the client shows the Bash call running all that while.
    h.fake.push(
      { toolUses: [{ name: "Write", input: { file_path: `${h.workspace("alice", SESSION)}/notes.txt`, content: "hi" } }, { name: "Bash", input: { command: watcher } }] },
      { toolUses: [{ name: "Bash", input: { command: waiter } }] },
      { text: "All done." },
    );
    await client.connect();
    client.submit("watch");
    const shown = await client.waitFor((s) => s.pendingApprovals?.length === 1 && callsOf(s).some((c) => c.name === "Bash" && c.status === "running"), 30_000);
    const bash = callsOf(shown).find((c) => c.name === "Bash")!;
    assert.equal(shown.pendingApprovals![0]!.toolName, "Write");
    client.background(bash.id);
    client.approve(shown.pendingApprovals![0]!.toolCallId);
    // The Bash call asks next; approved, it starts, and the request held for it moves it at once.
    const asks = await client.waitFor((s) => s.pendingApprovals?.some((p) => p.toolCallId === bash.id) === true, 30_000);
    client.approve(asks.pendingApprovals![0]!.toolCallId);
    const moved = await client.waitFor((s) => /manually backgrounded by user with ID: [0-9a-f]{6}/.test(s.messages.at(-1)?.toolCalls?.find((c) => c.id === bash.id)?.output ?? ""), 30_000);
    const id = /ID: ([0-9a-f]{6})/.exec(callsOf(moved).find((c) => c.id === bash.id)!.output!)![1]!;

    // The run goes on (the next call waits for approval, then runs): the state shows the shell running.
    const next = await client.waitFor((s) => s.pendingApprovals?.length === 1, 30_000);
    client.approve(next.pendingApprovals![0]!.toolCallId);
    const live = await client.waitFor((s) => s.status === "running" && s.shells?.some((shell) => shell.id === id && shell.status === "running") === true, 30_000);
    assert.equal(live.shells![0]!.command, watcher);
    client.killShell("nope");
    client.killShell(id);
    const killed = await client.waitFor((s) => s.shells?.find((shell) => shell.id === id)?.status === "killed", 30_000);
    assert.equal(killed.status, "running", "killed while the run goes on");
    await client.waitFor(() => errors.length === 1, 10_000);
    assert.match(errors[0]!, /^kill-shell: no background shell "nope"; the shells are [0-9a-f]{6}/);

    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${h.workspace("alice", SESSION)}/go2`, "");
    const done = await client.waitFor((s) => s.status === "idle" && s.messages.at(-1)?.status === "complete", 30_000);
    assert.match(done.messages.at(-1)!.content, /All done\./);
    assert.equal(errors.length, 1);
  } finally {
    client.close();
    await h.close();
  }
});

test("a background request held for a Bash call that is then refused is told in a notice", async () => {
  const h = await startHarness();
  const SESSION = "refused";
  const client = createHarnessClient({ url: h.server.url, userId: "alice", sessionId: SESSION });
  const errors: string[] = [];
  client.on("error", (e) => errors.push(e.message));
  try {
    h.fake.push({ toolUses: [{ name: "Write", input: { file_path: `${h.workspace("alice", SESSION)}/notes.txt`, content: "hi" } }, { name: "Bash", input: { command: "sleep 30" } }] }, { text: "Refused." });
    await client.connect();
    client.submit("sleep");
    const shown = await client.waitFor((s) => s.pendingApprovals?.length === 1 && callsOf(s).some((c) => c.name === "Bash" && c.status === "running"), 30_000);
    const bash = callsOf(shown).find((c) => c.name === "Bash")!;
    assert.equal(shown.pendingApprovals![0]!.toolName, "Write");
    client.background(bash.id);
    client.approve(shown.pendingApprovals![0]!.toolCallId);
    const asks = await client.waitFor((s) => s.pendingApprovals?.some((p) => p.toolCallId === bash.id) === true, 30_000);
    client.deny(asks.pendingApprovals![0]!.toolCallId, "not now");
    const done = await client.waitFor((s) => s.status === "idle" && s.messages.at(-1)?.status === "complete", 30_000);
    assert.equal(callsOf(done).find((c) => c.id === bash.id)?.status, "denied");
    assert.ok(
      done.notices?.some((n) => n.message === `The Bash call ${bash.id} was refused before its command started: nothing went to the background.`),
      JSON.stringify({ notices: done.notices, calls: callsOf(done) }),
    );
    assert.deepEqual(errors, []);
  } finally {
    client.close();
    await h.close();
  }
});

test("background without an id moves the Bash call running, never one waiting for approval: that one runs as usual once approved", async () => {
  const h = await startHarness();
  const SESSION = "waiting";
  const client = createHarnessClient({ url: h.server.url, userId: "alice", sessionId: SESSION });
  const errors: string[] = [];
  client.on("error", (e) => errors.push(e.message));
  try {
    const { mkdir, writeFile } = await import("node:fs/promises");
    const workspace = h.workspace("alice", SESSION);
    await mkdir(workspace, { recursive: true });
    await writeFile(`${workspace}/log.txt`, "");
    // Two Bash calls run together: the first only reads (it runs at once), the second asks.
    h.fake.push({ toolUses: [{ name: "Bash", input: { command: "tail -f log.txt" } }, { name: "Bash", input: { command: "mkdir -p made && echo made it" } }] }, { text: "Both done." });
    await client.connect();
    client.submit("go");
    const shown = await client.waitFor((s) => s.pendingApprovals?.length === 1 && callsOf(s).filter((c) => c.name === "Bash" && c.status === "running").length === 1, 30_000);
    const [tail, asking] = callsOf(shown);
    assert.equal(shown.pendingApprovals![0]!.toolCallId, asking!.id);
    client.background();
    await client.waitFor((s) => /manually backgrounded by user with ID/.test(callsOf(s).find((c) => c.id === tail!.id)?.output ?? ""), 30_000);
    client.approve(asking!.id);
    const done = await client.waitFor((s) => s.status === "idle" && s.messages.at(-1)?.status === "complete", 30_000);
    const ran = callsOf(done).find((c) => c.id === asking!.id);
    assert.equal(ran?.status, "complete", JSON.stringify(ran));
    assert.match(ran?.output ?? "", /^made it/);
    assert.equal(done.shells?.length, 1, JSON.stringify(done.shells));
    assert.deepEqual(errors, []);
  } finally {
    client.close();
    await h.close();
  }
});
