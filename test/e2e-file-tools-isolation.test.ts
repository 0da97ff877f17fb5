// One user's session cannot reach another's files through the file tools, even in fullAuto: the
// server's data directory is closed to them but for the session's own workspace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { idle, startHarness } from "./e2e-commands-support.ts";

test("a session's Read, Grep and Write reach neither another user's workspace nor the store", async () => {
  const h = await startHarness();
  try {
    const other = h.workspace("alice", "private");
    await mkdir(other, { recursive: true });
    await writeFile(join(other, "secret.txt"), "alice's secret");
    const mine = h.workspace("mallory", "mine");
    await mkdir(mine, { recursive: true });
    await writeFile(join(mine, "notes.md"), "mallory's notes");
    const dataDir = join(other, "..", "..", "..");
    h.fake.push(
      {
        toolUses: [
          { name: "Read", input: { file_path: join(other, "secret.txt") } },
          { name: "Grep", input: { pattern: "secret", path: dataDir, output_mode: "content" } },
          { name: "Read", input: { file_path: join(dataDir, "harness.db") } },
          { name: "Write", input: { file_path: join(other, "planted.txt"), content: "x" } },
          { name: "Read", input: { file_path: "notes.md" } },
        ],
      },
      { text: "Done." },
    );
    const client = await h.connect("mine", "mallory");
    client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "look around" });
    await client.waitForState(idle, 30_000, "the run to end");
    assert.deepEqual(client.errors, []);
    const calls = client.state!.messages[1].toolCalls!;
    assert.deepEqual(
      calls.map((c) => c.status),
      ["error", "error", "error", "error", "complete"],
    );
    for (const call of calls.slice(0, 4)) {
      assert.match(call.output ?? "", /denied: .*server's data directory/);
      assert.doesNotMatch(call.output ?? "", /alice's secret/);
    }
    assert.match(calls[4].output ?? "", /mallory's notes/);
    await assert.rejects(stat(join(other, "planted.txt")), { code: "ENOENT" });
    assert.equal(await readFile(join(other, "secret.txt"), "utf8"), "alice's secret");
    await client.close();
  } finally {
    await h.close();
  }
});
