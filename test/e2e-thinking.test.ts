// The model's thinking reaches clients as it streams, end to end: a real server and its runner, the
// fake model thinking before it answers, and a minimal client that knows only set and append-text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { idle, startHarness } from "./e2e-commands-support.ts";
import type { MinimalState } from "@harness/test-utils";

type Reply = MinimalState["messages"][number] & { thinking?: string };
const reply = (s: MinimalState) => s.messages.at(-1) as Reply | undefined;

test("a client sees the assistant message's thinking grow before its text; the reply itself is only the text", async () => {
  const h = await startHarness();
  try {
    h.fake.push({ thinking: ["The user ", "wants a ", "greeting."], text: ["Hello", " there."], delayMs: 150 });
    const client = await h.connect("think");
    client.send({ type: "submit", prompt: "say hello" });
    // The first state with thinking in it (the deltas may come several to a frame on a busy machine).
    await client.waitForState((s) => (reply(s)?.thinking ?? "") !== "", 30_000, "the first thinking delta");
    assert.ok("The user wants a greeting.".startsWith(reply(client.state!)!.thinking!), reply(client.state!)!.thinking);
    assert.equal(reply(client.state!)!.content, "", "no reply text yet");
    await client.waitForState(idle, 30_000, "the run to end");
    assert.deepEqual(client.errors, []);
    assert.equal(reply(client.state!)!.thinking, "The user wants a greeting.");
    assert.equal(reply(client.state!)!.content, "Hello there.");
    assert.equal(reply(client.state!)!.status, "complete");

    // Stored and replayed: a client that connects later gets it in its snapshot.
    const late = await h.connect("think");
    assert.equal(reply(late.state!)!.thinking, "The user wants a greeting.");
    await client.close();
    await late.close();
  } finally {
    await h.close();
  }
});
