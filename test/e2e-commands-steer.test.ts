// Steering end to end: a message sent while the agent works reaches the model at the next turn
// boundary, between two tool calls, and the conversation shows it where the model saw it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { idle, startHarness, userTexts } from "./e2e-commands-support.ts";

test("a steer sent during the first tool call is seen by the model before the second", async () => {
  const h = await startHarness();
  try {
    h.fake.push(
      // Writes a file: in the default mode the call waits for the user's approval.
      { text: "First step.", toolUses: [{ name: "Bash", input: { command: "echo one > one.txt && cat one.txt" } }] },
      { toolUses: [{ name: "Bash", input: { command: "echo two" } }] },
      { text: "Done, with tabs." },
    );
    const client = await h.connect("steer");
    const before = h.fake.requests.length;
    client.send({ type: "submit", prompt: "format the code" });
    const pending = () => (client.state!.pendingApprovals as { toolCallId: string }[] | undefined) ?? [];
    await client.waitForState(() => pending().length === 1, 30_000, "the first tool call's approval request");
    // The session hands a run's controls to its runner one after the other: the steer is with the
    // runner before the approval that lets the first tool call run, so before the next model call.
    client.send({ type: "steer", message: "use tabs, not spaces" }, { type: "approve", toolCallId: pending()[0].toolCallId });
    await client.waitForState(idle, 30_000, "the run to end");
    assert.deepEqual(client.errors, []);

    const requests = h.fake.requests.slice(before);
    assert.equal(requests.length, 3);
    assert.doesNotMatch(userTexts(requests[0].body), /use tabs/);
    assert.match(userTexts(requests[1].body), /use tabs, not spaces/, "the model sees the steer with the first tool's result");

    const messages = client.state!.messages;
    assert.deepEqual(messages.map((m) => [m.role, m.status]), [
      ["user", "complete"],
      ["assistant", "complete"],
      ["user", "complete"],
      ["assistant", "complete"],
    ]);
    assert.equal(messages[2].content, "use tabs, not spaces");
    assert.match(messages[1].toolCalls![0].output ?? "", /one/);
    assert.match(messages[3].toolCalls![0].output ?? "", /two/);
    assert.match(messages[3].content, /Done, with tabs\./);
    await client.close();
  } finally {
    await h.close();
  }
});
