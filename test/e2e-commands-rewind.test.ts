// Rewind end to end: the runner restores the files a run changed, byte for byte, and the
// conversation is cut back to before that run; a dry run only reports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
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

test("rewind restores a project cloned into the workspace, and leaves its git state (index, stash, branches) as it was", async () => {
  const h = await startHarness();
  try {
    const dir = h.workspace("alice", "cloned");
    const project = join(dir, "project");
    await mkdir(project, { recursive: true });
    const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@localhost", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@localhost" };
    const git = (...args: string[]) => execFileSync("git", args, { cwd: project, env }).toString();
    await writeFile(join(project, "main.c"), "int main() { return 0; }\n");
    await writeFile(join(project, "util.c"), "int util;\n");
    git("init", "--quiet", "--initial-branch", "main");
    git("add", ".");
    git("commit", "--quiet", "-m", "first");
    git("branch", "feature");
    await writeFile(join(project, "util.c"), "int util = 1;\n");
    git("stash", "--quiet");
    await writeFile(join(project, "main.c"), "int main() { return 1; }\n");
    git("add", "main.c");
    await writeFile(join(project, "notes.txt"), "untracked\n");
    const gitState = () => [git("status", "--porcelain=v2", "--branch"), git("stash", "list"), git("branch", "--list"), git("diff", "--cached")];
    const before = gitState();

    h.fake.push(
      { toolUses: [{ name: "Bash", input: { command: "cd project && echo broken > main.c && rm notes.txt && echo new > added.c" } }] },
      { text: "Broke it." },
    );
    const client = await h.connect("cloned");
    client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "refactor" });
    await client.waitForState((s) => idle(s) && s.messages.length === 2, 30_000, "the run");
    assert.equal(await readFile(join(project, "main.c"), "utf8"), "broken\n");

    client.send({ type: "rewind", messageId: client.state!.messages[0].id, dryRun: true });
    await client.waitForState((s) => Boolean(s.rewindPreview), 30_000, "the preview");
    const preview = client.state!.rewindPreview as { files: { path: string; action: string }[] };
    assert.deepEqual(preview.files.map((f) => `${f.action} ${f.path}`).sort(), ["delete project/added.c", "restore project/main.c", "restore project/notes.txt"]);
    client.send({ type: "rewind", messageId: client.state!.messages[0].id });
    await client.waitForState((s) => s.messages.length === 0, 30_000, "the rewind");
    assert.deepEqual(client.errors, []);
    assert.equal(await readFile(join(project, "main.c"), "utf8"), "int main() { return 1; }\n");
    assert.equal(await readFile(join(project, "notes.txt"), "utf8"), "untracked\n");
    assert.equal(existsSync(join(project, "added.c")), false);
    assert.deepEqual(gitState(), before);
    await client.close();
  } finally {
    await h.close();
  }
});

test("a run that removed the whole workspace is rewound: the workspace comes back with its files", async () => {
  const h = await startHarness();
  try {
    const dir = h.workspace("alice", "wiped");
    h.fake.push(
      { toolUses: [{ name: "Write", input: { file_path: join(dir, "notes", "plan.md"), content: "# the plan\n" } }] },
      { text: "Wrote the plan." },
      { toolUses: [{ name: "Bash", input: { command: 'rm -rf "$PWD"' } }] },
      { text: "Cleaned up." },
    );
    const client = await h.connect("wiped");
    client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "write the plan" });
    await client.waitForState((s) => idle(s) && s.messages.length === 2, 30_000, "the first run");
    client.send({ type: "submit", prompt: "clean up" });
    await client.waitForState((s) => idle(s) && s.messages.length === 4, 30_000, "the second run");
    assert.equal(existsSync(dir), false);

    client.send({ type: "rewind", messageId: client.state!.messages[2].id });
    await client.waitFor((c) => c.state!.messages.length === 2 || c.errors.length > 0, 30_000, "the rewind");
    assert.deepEqual(client.errors, []);
    assert.equal(await readFile(join(dir, "notes", "plan.md"), "utf8"), "# the plan\n");
    await client.close();
  } finally {
    await h.close();
  }
});
