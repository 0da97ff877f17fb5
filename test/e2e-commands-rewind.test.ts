// Rewind end to end: the runner restores the files a run changed, byte for byte, and the
// conversation is cut back to before that run; a dry run only reports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { idle, startHarness } from "./e2e-commands-support.ts";

test("rewind restores three edited files byte for byte and cuts the conversation; a dry run changes nothing", async () => {
  const h = await startHarness();
  try {
    const dir = h.workspace("alice", "rewind");
    const file = (name: string) => join(dir, name);
    const original = { "a.txt": "alpha\n", "b.txt": "beta — β\r\nsecond line", "c.txt": "gamma" };
    h.fake.push(
      {
        toolUses: Object.entries(original).map(([name, content]) => ({ name: "Write", input: { file_path: file(name), content } })),
      },
      { text: "Set up." },
      { toolUses: Object.keys(original).map((name) => ({ name: "Read", input: { file_path: file(name) } })) },
      {
        toolUses: [
          { name: "Write", input: { file_path: file("a.txt"), content: "ALPHA\n" } },
          { name: "Edit", input: { file_path: file("b.txt"), old_string: "beta — β", new_string: "BETA" } },
          { name: "Write", input: { file_path: file("c.txt"), content: "GAMMA\n\n" } },
        ],
      },
      { text: "Changed." },
      { text: "Fresh start." },
    );
    const client = await h.connect("rewind");
    client.send({ type: "configure", config: { permissionMode: "acceptEdits" } }, { type: "submit", prompt: "set up the files" });
    await client.waitForState((s) => idle(s) && s.messages.length === 2, 30_000, "the first run");
    client.send({ type: "submit", prompt: "change the files" });
    await client.waitForState((s) => idle(s) && s.messages.length === 4, 30_000, "the second run");
    assert.deepEqual(client.errors, []);
    const changed = { "a.txt": "ALPHA\n", "b.txt": "BETA\r\nsecond line", "c.txt": "GAMMA\n\n" };
    for (const [name, content] of Object.entries(changed)) assert.equal(await readFile(file(name), "utf8"), content, name);
    // The checkpoints live in the state tree, never beside the workspace (where another session's
    // workspace may be).
    assert.ok(existsSync(join(h.dataDir, "state", "alice", "rewind", "checkpoints.git")));
    assert.deepEqual(await readdir(join(h.dataDir, "workspaces", "alice")), ["rewind"]);
    const target = client.state!.messages[2].id;
    const messages = structuredClone(client.state!.messages);

    client.send({ type: "rewind", messageId: target, dryRun: true });
    await client.waitForState((s) => Boolean(s.rewindPreview), 30_000, "the preview");
    const preview = client.state!.rewindPreview as { messageId: string; files: { path: string; action: string }[] };
    assert.equal(preview.messageId, target);
    assert.deepEqual(preview.files.map((f) => f.path.split("/").at(-1)).sort(), ["a.txt", "b.txt", "c.txt"]);
    assert.ok(preview.files.every((f) => f.action === "restore"));
    for (const [name, content] of Object.entries(changed)) assert.equal(await readFile(file(name), "utf8"), content, `${name} after the dry run`);
    assert.deepEqual(client.state!.messages, messages);

    client.send({ type: "rewind", messageId: target });
    await client.waitForState((s) => s.messages.length === 2, 30_000, "the rewind");
    for (const [name, content] of Object.entries(original)) assert.deepEqual(await readFile(file(name)), Buffer.from(content), `${name} restored`);
    assert.equal(client.state!.rewindPreview ?? null, null);
    assert.equal(client.state!.status, "idle");

    const before = h.fake.requests.length;
    client.send({ type: "submit", prompt: "try something else" });
    await client.waitForState((s) => idle(s) && s.messages.length === 4, 30_000);
    const sent = JSON.stringify(h.fake.requests[before].body.messages);
    assert.match(sent, /set up the files/);
    assert.doesNotMatch(sent, /change the files/, "the model no longer sees the rewound run");
    assert.deepEqual(client.errors, []);
    await client.close();
  } finally {
    await h.close();
  }
});

test("a fork can rewind to the messages it shares with its source: its checkpoints are copied with its files", async () => {
  const h = await startHarness();
  try {
    h.fake.push(
      { toolUses: [{ name: "Write", input: { file_path: "a.txt", content: "one" } }] },
      { text: "Wrote one." },
      { toolUses: [{ name: "Write", input: { file_path: "a.txt", content: "two" } }] },
      { text: "Wrote two." },
    );
    const client = await h.connect("source");
    client.send({ type: "configure", config: { permissionMode: "acceptEdits" } }, { type: "submit", prompt: "write one" });
    await client.waitForState((s) => idle(s) && s.messages.length === 2, 30_000, "the first run");
    client.send({ type: "submit", prompt: "write two" });
    await client.waitForState((s) => idle(s) && s.messages.length === 4, 30_000, "the second run");
    const second = client.state!.messages[2].id;
    await client.close();

    const forked = await fetch(`${h.server.url}/sessions/source/fork`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "alice", sessionId: "copy" }) });
    assert.equal(forked.status, 201);
    const copy = await h.connect("copy");
    assert.equal(copy.state!.messages[2].id, second);
    copy.send({ type: "rewind", messageId: second });
    await copy.waitForState((s) => s.messages.length === 2, 30_000, "the fork's rewind");
    assert.deepEqual(copy.errors, []);
    assert.equal(await readFile(join(h.workspace("alice", "copy"), "a.txt"), "utf8"), "one");
    assert.equal(await readFile(join(h.workspace("alice", "source"), "a.txt"), "utf8"), "two", "the source's files are its own");
    await copy.close();
  } finally {
    await h.close();
  }
});
