// A running command's output reaches clients as it comes, end to end: a real server and its runner,
// the fake model asking for a Bash call, and minimal clients that know only set and append-text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { idle, startHarness } from "./e2e-commands-support.ts";
import type { MinimalState } from "@harness/test-utils";

const bashCall = (s: MinimalState) => s.messages.at(-1)?.toolCalls?.[0];

test("a Bash call's output shows in every client's state while the command still runs", async () => {
  const h = await startHarness();
  try {
    // The command prints its last lines only once the test has seen the first (the file "go").
    h.fake.push({ toolUses: [{ name: "Bash", input: { command: "echo 1; while [ ! -e go ]; do sleep 0.1; done; echo 2; echo 3" } }] }, { text: "Counted to three." });
    const client = await h.connect("count");
    client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "count to three" });
    await client.waitForState((s) => bashCall(s)?.status === "running" && /^1\n/.test(bashCall(s)?.output ?? ""), 30_000, "the first line while the call runs");
    assert.doesNotMatch(bashCall(client.state!)!.output!, /3/, "seen before the command printed its last line");

    // A client that joins now gets what was printed so far in its snapshot, and the rest as deltas.
    const late = await h.connect("count");
    assert.match(bashCall(late.state!)?.output ?? "", /^1\n/);
    await writeFile(join(h.workspace("alice", "count"), "go"), "");

    await client.waitForState(idle, 30_000, "the run to end");
    await late.waitForState(idle, 30_000, "the run to end, for the client that joined late");
    for (const c of [client, late]) {
      assert.deepEqual(c.errors, []);
      assert.equal(bashCall(c.state!)?.status, "complete");
      assert.equal(bashCall(c.state!)?.output, "1\n2\n3");
      assert.match(c.state!.messages.at(-1)!.content, /Counted to three\./);
    }
    await client.close();
    await late.close();
  } finally {
    await h.close();
  }
});
