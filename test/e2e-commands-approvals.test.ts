// Approvals end to end: a real server and runner, the model faked at the wire. The model asks for
// two commands that need the user's approval; one is approved and runs, the other is denied and
// does not, and the model is told why.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { idle, startHarness } from "./e2e-commands-support.ts";

test("two calls awaiting approval: one approved runs, the other denied does not, and the model hears the reason", async () => {
  const h = await startHarness();
  try {
    h.fake.push(
      {
        text: "I will write both files.",
        toolUses: [
          { name: "Bash", input: { command: "echo yes > approved.txt", description: "write approved.txt" } },
          { name: "Bash", input: { command: "echo no > denied.txt", description: "write denied.txt" } },
        ],
      },
      { text: "One written, one refused." },
    );
    const client = await h.connect("approvals");
    client.send({ type: "submit", prompt: "write two files" });

    const callOf = (needle: string) => client.state!.messages[1]?.toolCalls?.find((c) => JSON.stringify(c.input).includes(needle));
    const pending = () => (client.state!.pendingApprovals as { toolCallId: string }[] | undefined) ?? [];
    // The runner may ask for both at once or one after the other: each is answered when asked.
    const answered = new Set<string>();
    while (answered.size < 2) {
      await client.waitForState(() => pending().some((p) => !answered.has(p.toolCallId)), 30_000, "an approval request");
      assert.equal(client.state!.status, "awaiting-approval");
      for (const { toolCallId } of pending()) {
        if (answered.has(toolCallId)) continue;
        answered.add(toolCallId);
        assert.equal(client.state!.messages[1].toolCalls!.find((c) => c.id === toolCallId)?.status, "awaiting-approval");
        if (toolCallId === callOf("approved.txt")?.id) client.send({ type: "approve", toolCallId });
        else client.send({ type: "deny", toolCallId, reason: "not that one" });
      }
    }
    await client.waitForState(idle, 30_000, "the run to end");
    assert.deepEqual(client.errors, []);
    assert.deepEqual(client.state!.pendingApprovals, []);
    const workspace = h.workspace("alice", "approvals");
    assert.equal(await readFile(join(workspace, "approved.txt"), "utf8"), "yes\n");
    assert.equal(existsSync(join(workspace, "denied.txt")), false);

    const approved = callOf("approved.txt")!;
    const denied = callOf("denied.txt")!;
    assert.equal(approved.status, "complete");
    assert.equal(denied.status, "denied");
    assert.match(denied.output ?? "", /not that one/);
    assert.equal(client.state!.messages[1].status, "complete");
    assert.match(client.state!.messages[1].content, /One written, one refused\.$/);

    const results = (h.fake.requests.at(-1)!.body.messages.at(-1).content as { type: string; tool_use_id: string; is_error?: boolean }[]).filter((b) => b.type === "tool_result");
    const refused = results.find((r) => r.tool_use_id === denied.id)!;
    assert.equal(refused.is_error, true);
    assert.match(JSON.stringify(refused), /not that one/);
    await client.close();
  } finally {
    await h.close();
  }
});

test("a permission mode chosen while a call awaits approval answers it when the mode decides it: the call runs and the approval is gone", async () => {
  const h = await startHarness();
  try {
    h.fake.push({ text: "Writing it.", toolUses: [{ name: "Write", input: { file_path: "notes.txt", content: "from the model\n" } }] }, { text: "Written." });
    const client = await h.connect("mode-answers");
    client.send({ type: "submit", prompt: "write notes.txt" });
    const pending = () => (client.state!.pendingApprovals as { toolCallId: string }[] | undefined) ?? [];
    await client.waitForState(() => pending().length > 0, 30_000, "the approval request");
    client.send({ type: "configure", config: { permissionMode: "acceptEdits" } });
    await client.waitForState(idle, 30_000, "the run to end");

    assert.deepEqual(client.errors, []);
    assert.deepEqual(client.state!.pendingApprovals, []);
    assert.equal(await readFile(join(h.workspace("alice", "mode-answers"), "notes.txt"), "utf8"), "from the model\n");
    const call = client.state!.messages[1]!.toolCalls!.find((c) => c.name === "Write")!;
    assert.equal(call.status, "complete");
    assert.match(client.state!.messages[1]!.content, /Written\.$/);
    await client.close();
  } finally {
    await h.close();
  }
});
