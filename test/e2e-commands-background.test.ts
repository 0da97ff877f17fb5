// A running Bash call sent to the background end to end (client SDK → server → session → runner →
// agent): the run goes on to the model's next turn without waiting for the command, which keeps
// running in the session's runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createHarnessClient } from "@harness/client";
import { waitFor } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";

test("background sent while a Bash call runs: the model's next turn comes at once with the shell's id, and the command goes on", async () => {
  const h = await startHarness();
  const client = createHarnessClient({ url: h.server.url, userId: "alice", sessionId: "bg" });
  const errors: string[] = [];
  client.on("error", (e) => errors.push(e.message));
  try {
    const command = "echo started; while [ ! -e go ]; do sleep 0.1; done; echo finished > done.txt";
    h.fake.push({ toolUses: [{ name: "Bash", input: { command } }] }, { text: "It runs in the background." });
    await client.connect();
    await client.configure({ permissionMode: "fullAuto" });
    const before = h.fake.requests.length;

    client.submit("start the watcher");
    const running = await client.waitFor((s) => /started/.test(s.messages[1]?.toolCalls?.[0]?.output ?? ""), 30_000);
    const call = running.messages[1].toolCalls![0];
    assert.equal(call.status, "running");

    // Not a Bash call, or no such call: an error frame naming it.
    client.background("toolu_nope");
    client.background(call.id);
    const state = await client.waitFor((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /^background: no tool call "toolu_nope" in the run in progress/);

    assert.equal(h.fake.requests.length, before + 2, "the model's next turn came");
    const id = /^Command was manually backgrounded by user with ID: ([0-9a-f]{6})\./.exec(state.messages[1].toolCalls![0].output ?? "")?.[1];
    assert.ok(id, state.messages[1].toolCalls![0].output);
    assert.equal(state.messages[1].toolCalls![0].status, "complete");
    assert.match(JSON.stringify(h.fake.requests.at(-1)!.body), new RegExp(`manually backgrounded by user with ID: ${id}`));
    assert.match(state.messages[1].content, /It runs in the background\./);

    // The command was neither stopped nor started again: it finishes once told to.
    const workspace = h.workspace("alice", "bg");
    assert.equal(existsSync(join(workspace, "done.txt")), false);
    await writeFile(join(workspace, "go"), "");
    await waitFor(() => existsSync(join(workspace, "done.txt")), "the background command to finish");
    assert.equal(errors.length, 1);
  } finally {
    client.close();
    await h.close();
  }
});
