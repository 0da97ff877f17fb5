// The background shells between runs, end to end (client SDK → server → session → runner process →
// agent): a shell that ends after its run shows completed in a connected client's state without
// another prompt, each session seeing its own shells though they share a runner process; kill-shell
// stops one between runs; past HARNESS_MAX_BACKGROUND_SHELLS one more is not started.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createHarnessClient, type HarnessClient } from "@harness/client";
import type { HarnessState } from "@harness/protocol";
import { startHarness, type Harness } from "./e2e-commands-support.ts";

const shellOf = (s: HarnessState, command: string) => s.shells?.find((shell) => shell.command === command);

/** A client of session `sessionId` whose run started `commands` in the background and ended. */
async function withShells(h: Harness, sessionId: string, commands: string[]): Promise<{ client: HarnessClient; errors: string[]; state: HarnessState }> {
  const client = createHarnessClient({ url: h.server.url, userId: "alice", sessionId });
  const errors: string[] = [];
  client.on("error", (e) => errors.push(e.message));
  h.fake.push({ toolUses: commands.map((command) => ({ name: "Bash", input: { command, run_in_background: true } })) }, { text: "Started." });
  await client.connect();
  await client.configure({ permissionMode: "fullAuto" });
  client.submit("start them");
  const state = await client.waitFor((s) => s.status === "idle" && s.messages.at(-1)?.status === "complete" && commands.every((c) => shellOf(s, c)?.status === "running"), 30_000);
  return { client, errors, state };
}

test("between runs a background shell that ends shows completed without another prompt, in its own session only; kill-shell stops one between runs", async () => {
  const h = await startHarness();
  const clients: HarnessClient[] = [];
  try {
    const waiter = "while [ ! -e go ]; do sleep 0.1; done; echo finished";
    const server = "sleep 300";
    const a = await withShells(h, "idle-a", [waiter, server]);
    clients.push(a.client);
    const b = await withShells(h, "idle-b", [waiter]);
    clients.push(b.client);
    const requests = h.fake.requests.length;

    // Session a's waiter ends after its run: a's state says so; b's, of the same command in its own
    // workspace on the same runner process, still runs.
    await writeFile(join(h.workspace("alice", "idle-a"), "go"), "");
    const ended = await a.client.waitFor((s) => shellOf(s, waiter)?.status === "completed", 30_000);
    assert.equal(shellOf(ended, waiter)?.exitCode, 0);
    assert.equal(ended.status, "idle");
    assert.equal(shellOf(ended, server)?.status, "running");
    assert.equal(shellOf(b.client.state!, waiter)?.status, "running");

    // kill-shell between runs: no run, and the state shows it killed.
    const id = shellOf(ended, server)!.id;
    a.client.killShell("nope");
    a.client.killShell(id);
    const killed = await a.client.waitFor((s) => shellOf(s, server)?.status === "killed", 30_000);
    assert.equal(killed.status, "idle");
    assert.equal(killed.messages.length, ended.messages.length, "no prompt was sent");
    await a.client.waitFor(() => a.errors.length === 1, 10_000);
    assert.match(a.errors[0]!, /^kill-shell: no background shell "nope"; the shells are [0-9a-f]{6}, [0-9a-f]{6}/);

    // Session b's own shell ends in its turn.
    await writeFile(join(h.workspace("alice", "idle-b"), "go"), "");
    await b.client.waitFor((s) => shellOf(s, waiter)?.status === "completed", 30_000);
    assert.equal(h.fake.requests.length, requests, "no model request was made for any of it");
    assert.deepEqual(b.errors, []);
  } finally {
    for (const client of clients) client.close();
    await h.close();
  }
});

test("past HARNESS_MAX_BACKGROUND_SHELLS one more background command is not started: the model reads the limit and KillShell", async () => {
  const h = await startHarness({}, { HARNESS_MAX_BACKGROUND_SHELLS: "1" });
  const client = createHarnessClient({ url: h.server.url, userId: "alice", sessionId: "capped" });
  try {
    h.fake.push({ toolUses: [{ name: "Bash", input: { command: "sleep 300", run_in_background: true } }, { name: "Bash", input: { command: "sleep 301", run_in_background: true } }] }, { text: "One ran." });
    await client.connect();
    await client.configure({ permissionMode: "fullAuto" });
    client.submit("start two");
    const done = await client.waitFor((s) => s.status === "idle" && s.messages.at(-1)?.status === "complete", 30_000);
    const [first, second] = done.messages.at(-1)!.toolCalls!;
    assert.match(first!.output ?? "", /^Command running in background with ID: [0-9a-f]{6}/);
    assert.equal(second!.status, "error");
    assert.match(second!.output ?? "", /^The command was not started: 1 background shell is running already, the most one conversation may run at once \(HARNESS_MAX_BACKGROUND_SHELLS=1\)\. Stop one that is no longer needed with KillShell/);
    assert.deepEqual(done.shells?.map((s) => s.command), ["sleep 300"]);
  } finally {
    client.close();
    await h.close();
  }
});
