import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedProvider, type ScriptedStep } from "@harness/agent/testing";
import type { RewindResult, RunnerEvent } from "@harness/protocol";
import { builtinBackend } from "../backends/builtin.ts";
import { readIndex } from "../checkpoints/index-file.ts";
import { collect, fakeBackend, never, post, startRunner, tempDir, usage, waitFor, type TestContext } from "../test-support.ts";

const hasGit = spawnSync("git", ["--version"]).status === 0;
const needsGit = { skip: hasGit ? false : "git is not installed" };

/** A workspace with three files, and HOME pointed at an empty directory so that no user settings
 * of this machine reach the agent. */
function workspaceWithFiles(t: TestContext) {
  const root = tempDir(t, "harness-rewind-");
  const workspace = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  const original = {
    "edited.txt": "alpha\nbeta\ngamma\n",
    "written.txt": "first version\r\nwith CRLF\r\n",
    "shell.txt": "old value\nline two\n",
  };
  for (const [name, content] of Object.entries(original)) writeFileSync(join(workspace, name), content);
  const savedHome = process.env.HOME;
  process.env.HOME = home;
  t.after(() => {
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
  });
  return { workspace, original, read: (name: string) => readFileSync(join(workspace, name), "utf8") };
}

/** The agent reads, then changes the three files with Edit, Write and Bash, and creates two more. */
function editingScript(workspace: string): ScriptedStep[] {
  const at = (name: string) => join(workspace, name);
  return [
    {
      toolCalls: [
        { id: "r1", name: "Read", input: { file_path: at("edited.txt") } },
        { id: "r2", name: "Read", input: { file_path: at("written.txt") } },
      ],
    },
    {
      toolCalls: [
        { id: "e1", name: "Edit", input: { file_path: at("edited.txt"), old_string: "beta", new_string: "BETA\nextra" } },
        { id: "w1", name: "Write", input: { file_path: at("written.txt"), content: "replaced\n" } },
        { id: "w2", name: "Write", input: { file_path: at("notes/created-by-write.md"), content: "# new\n" } },
        { id: "b1", name: "Bash", input: { command: "sed -i 's/old value/new value/' shell.txt && echo appended >> shell.txt && echo fresh > created-by-bash.txt" } },
      ],
    },
    { text: "All changed." },
  ];
}

function completed(events: RunnerEvent[]): void {
  const last = events.at(-1);
  assert.equal(last?.type, "run.completed", JSON.stringify(events.filter((e) => e.type !== "assistant.delta")));
}

const byPath = (result: RewindResult) => [...result.files].sort((a, b) => a.path.localeCompare(b.path));

test("rewind restores files changed by Write, Edit and Bash byte for byte and deletes the files created since", needsGit, async (t) => {
  const { workspace, original, read } = workspaceWithFiles(t);
  const provider = scriptedProvider([...editingScript(workspace), { toolCalls: [{ name: "Bash", input: { command: "echo later >> edited.txt" } }] }, { text: "ok" }]);
  const { client } = await startRunner(t, { workspace, backend: builtinBackend({ provider: () => provider }) });

  completed(await collect(client.query({ prompt: "change things", userMessageId: "u1", permissionMode: "bypassPermissions" }, { signal: never() })));
  assert.equal(read("edited.txt"), "alpha\nBETA\nextra\ngamma\n");
  assert.equal(read("written.txt"), "replaced\n");
  assert.equal(read("shell.txt"), "new value\nline two\nappended\n");
  assert.ok(existsSync(join(workspace, "created-by-bash.txt")));
  // A later message changes more; rewinding to u1 undoes both.
  completed(await collect(client.query({ prompt: "and more", userMessageId: "u2", permissionMode: "bypassPermissions" }, { signal: never() })));
  const changed = { edited: read("edited.txt"), written: read("written.txt"), shell: read("shell.txt") };

  const preview = await client.rewind({ userMessageId: "u1", dryRun: true });
  assert.deepEqual(byPath(preview), [
    { path: "created-by-bash.txt", action: "delete", linesAdded: 0, linesRemoved: 1 },
    { path: "edited.txt", action: "restore", linesAdded: 1, linesRemoved: 3 },
    { path: "notes/created-by-write.md", action: "delete", linesAdded: 0, linesRemoved: 1 },
    { path: "shell.txt", action: "restore", linesAdded: 1, linesRemoved: 2 },
    { path: "written.txt", action: "restore", linesAdded: 2, linesRemoved: 1 },
  ]);
  assert.equal(preview.dryRun, true);
  assert.deepEqual({ edited: read("edited.txt"), written: read("written.txt"), shell: read("shell.txt") }, changed, "a dry run changes nothing");
  assert.ok(existsSync(join(workspace, "created-by-bash.txt")));

  const done = await client.rewind({ userMessageId: "u1" });
  assert.equal(done.dryRun, false);
  assert.deepEqual(byPath(done), byPath(preview));
  for (const [name, content] of Object.entries(original)) assert.equal(read(name), content, name);
  assert.equal(existsSync(join(workspace, "created-by-bash.txt")), false);
  assert.equal(existsSync(join(workspace, "notes")), false);
  assert.deepEqual((await client.rewind({ userMessageId: "u1", dryRun: true })).files, [], "nothing left to restore");
});

test("rewind is refused while a run is in flight, and names a message without checkpoint", needsGit, async (t) => {
  const { workspace } = workspaceWithFiles(t);
  const provider = scriptedProvider([{ text: "thinking…", hang: true }]);
  const { url, client } = await startRunner(t, { workspace, backend: builtinBackend({ provider: () => provider }) });
  const controller = new AbortController();
  const iter = client.query({ prompt: "p", userMessageId: "u1" }, { signal: controller.signal })[Symbol.asyncIterator]();
  for (let e = await iter.next(); !e.done && e.value.type !== "assistant.delta"; e = await iter.next());

  const busy = await post(`${url}/rewind`, { userMessageId: "u1" });
  assert.equal(busy.status, 409);
  assert.match(busy.body.error ?? "", /cannot rewind while a run is in flight/);
  controller.abort();
  await assert.rejects(iter.next());
  await waitFor(async () => !(await client.health()).busy, "the run to end");

  const unknown = await post(`${url}/rewind`, { userMessageId: "never-sent" });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error, 'no checkpoint for user message "never-sent"');
  const bad = await post(`${url}/rewind`, { userMessageId: "", dryRun: "yes" });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error ?? "", /userMessageId: .*; dryRun: /);
  assert.equal((await post(`${url}/rewind`, { userMessageId: "u1", dryRun: true })).status, 200);
});

test("a rewind that would remove ignored files is refused with 422 naming them, before a backend's own rewind runs", needsGit, async (t) => {
  const { workspace, read } = workspaceWithFiles(t);
  let ownRewinds = 0;
  const backend = fakeBackend(
    async () => {
      // A file of the checkpoint becomes a directory, where the user then keeps an ignored file.
      rmSync(join(workspace, "shell.txt"));
      mkdirSync(join(workspace, "shell.txt"));
      writeFileSync(join(workspace, ".gitignore"), "*.env\n");
      writeFileSync(join(workspace, "shell.txt", "secrets.env"), "KEY=1\n");
      return { ok: true, result: "ok", usage, transcript: [] };
    },
    {
      async rewind(request) {
        ownRewinds++;
        return { dryRun: request.dryRun, files: [] };
      },
    },
  );
  const { url, client } = await startRunner(t, { workspace, backend });
  completed(await collect(client.query({ prompt: "p", userMessageId: "u1" }, { signal: never() })));
  for (const dryRun of [true, false]) {
    const answer = await post(`${url}/rewind`, { userMessageId: "u1", dryRun });
    assert.equal(answer.status, 422);
    assert.match(answer.body.error ?? "", /would be lost: shell\.txt\/secrets\.env; move them away and rewind again/);
  }
  assert.equal(ownRewinds, 0);
  assert.equal(read("shell.txt/secrets.env"), "KEY=1\n");
});

test("while a rewind is in progress, a query or another rewind is refused with 409 saying so", needsGit, async (t) => {
  const { workspace } = workspaceWithFiles(t);
  let release = () => {};
  let entered = false;
  const backend = fakeBackend(async () => ({ ok: true, result: "ok", usage, transcript: [] }), {
    async rewind(request) {
      entered = true;
      await new Promise<void>((resolve) => (release = resolve));
      return { dryRun: request.dryRun, files: [] };
    },
  });
  const { url, client } = await startRunner(t, { workspace, backend });
  completed(await collect(client.query({ prompt: "p", userMessageId: "u1" }, { signal: never() })));
  const first = post(`${url}/rewind`, { userMessageId: "u1" });
  await waitFor(async () => entered, "the rewind to start");
  const second = await post(`${url}/rewind`, { userMessageId: "u1" });
  assert.deepEqual([second.status, second.body.error], [409, "cannot rewind while another rewind of this workspace is in progress"]);
  const query = await post(`${url}/query`, { prompt: "p2", userMessageId: "u2" });
  assert.deepEqual([query.status, query.body.error], [409, "runner is busy rewinding the workspace"]);
  release();
  assert.equal((await first).status, 200);
});

test("without git, runs say checkpoints are off and rewind answers 501 saying git is needed", async (t) => {
  const { workspace } = workspaceWithFiles(t);
  const provider = scriptedProvider([{ text: "ok" }]);
  const { url, client } = await startRunner(t, {
    workspace,
    backend: builtinBackend({ provider: () => provider }),
    git: join(workspace, "no-such-git"),
  });
  const events = await collect(client.query({ prompt: "p", userMessageId: "u1" }, { signal: never() }));
  completed(events);
  const notice = events.find((e) => e.type === "notice");
  assert.ok(notice?.type === "notice");
  assert.match(notice.message, /File checkpoints are off: .*need git/);
  const answer = await post(`${url}/rewind`, { userMessageId: "u1", dryRun: true });
  assert.equal(answer.status, 501);
  assert.match(answer.body.error ?? "", /need git/);
});

test("a backend's own rewind runs first; the runner's snapshot restores what it did not track", needsGit, async (t) => {
  const { workspace, original, read } = workspaceWithFiles(t);
  const calls: { userMessageId: string; dryRun: boolean; at: string }[] = [];
  const backend = fakeBackend(
    async () => {
      writeFileSync(join(workspace, "edited.txt"), "by the backend's edit tool\n");
      writeFileSync(join(workspace, "shell.txt"), "by a shell command\n");
      return { ok: true, result: "ok", usage, transcript: [] };
    },
    {
      async rewind(request) {
        calls.push({ userMessageId: request.userMessageId, dryRun: request.dryRun, at: read("edited.txt") });
        // It tracks its edit tool only, and puts that file back itself.
        if (!request.dryRun) writeFileSync(join(workspace, "edited.txt"), original["edited.txt"]);
        return { dryRun: request.dryRun, files: [{ path: "edited.txt", action: "restore" }, { path: "outside/its-own.txt", action: "restore" }] };
      },
    },
  );
  const { client } = await startRunner(t, { workspace, backend });
  completed(await collect(client.query({ prompt: "p", userMessageId: "u1" }, { signal: never() })));

  const result = await client.rewind({ userMessageId: "u1" });
  assert.deepEqual(calls, [{ userMessageId: "u1", dryRun: false, at: "by the backend's edit tool\n" }]);
  assert.deepEqual(result.files, [
    { path: "edited.txt", action: "restore", linesAdded: 3, linesRemoved: 1 },
    { path: "shell.txt", action: "restore", linesAdded: 2, linesRemoved: 1 },
    { path: "outside/its-own.txt", action: "restore" },
  ]);
  for (const [name, content] of Object.entries(original)) assert.equal(read(name), content, name);
});

test("a checkpoint that cannot be taken is reported on the run, which still completes", needsGit, async (t) => {
  const { workspace } = workspaceWithFiles(t);
  const blocker = join(workspace, "..", "not-a-directory");
  writeFileSync(blocker, "");
  const provider = scriptedProvider([{ text: "ok" }]);
  const { client } = await startRunner(t, { workspace, stateDir: join(blocker, "state"), backend: builtinBackend({ provider: () => provider }) });
  const events = await collect(client.query({ prompt: "p", userMessageId: "u1" }, { signal: never() }));
  completed(events);
  const notice = events.find((e) => e.type === "notice");
  assert.ok(notice?.type === "notice" && notice.level === "warning");
  assert.match(notice.message, /No file checkpoint was taken for this run/);
});

test("a run whose checkpoint leaves out files git cannot store says which; the rest rewinds", needsGit, async (t) => {
  const { workspace, original, read } = workspaceWithFiles(t);
  mkdirSync(join(workspace, ".GIT"));
  writeFileSync(join(workspace, ".GIT", "notes"), "mine\n");
  const backend = fakeBackend(async () => {
    writeFileSync(join(workspace, "shell.txt"), "changed\n");
    return { ok: true, result: "ok", usage, transcript: [] };
  });
  const { client } = await startRunner(t, { workspace, backend });
  const events = await collect(client.query({ prompt: "p", userMessageId: "u1" }, { signal: never() }));
  completed(events);
  const notices = events.filter((e) => e.type === "notice").map((e) => e.type === "notice" && e.message);
  assert.deepEqual(notices, ["The file checkpoint of this run leaves out files whose names git cannot store, so a rewind leaves them as they are: .GIT/notes"]);
  assert.deepEqual((await client.rewind({ userMessageId: "u1" })).files.map((f) => f.path), ["shell.txt"]);
  assert.equal(read("shell.txt"), original["shell.txt"]);
  assert.equal(read(".GIT/notes"), "mine\n");
});

test("a run that only reads takes no snapshot; a rewind to it restores the one taken before the next change", needsGit, async (t) => {
  const { workspace, original, read } = workspaceWithFiles(t);
  const stateDir = join(workspace, "..", "state");
  const provider = scriptedProvider([
    { toolCalls: [{ name: "Read", input: { file_path: join(workspace, "edited.txt") } }] },
    { text: "It has three lines." },
    { toolCalls: [{ name: "Bash", input: { command: "echo changed > edited.txt && rm shell.txt" } }] },
    { text: "Changed." },
  ]);
  const { client } = await startRunner(t, { workspace, stateDir, backend: builtinBackend({ provider: () => provider }) });
  const index = async () => (await readIndex(stateDir)).index.messages;

  completed(await collect(client.query({ prompt: "read it", userMessageId: "u1", permissionMode: "bypassPermissions" }, { signal: never() })));
  assert.equal((await index()).u1.pending, true);
  assert.equal(existsSync(join(stateDir, "checkpoints.git")), false, "no snapshot was taken");
  assert.deepEqual((await client.rewind({ userMessageId: "u1", dryRun: true })).files, [], "nothing changed since u1");

  // The user changes a file between the two runs: a change made outside a run is kept.
  writeFileSync(join(workspace, "written.txt"), "the user's own edit\n");
  completed(await collect(client.query({ prompt: "change it", userMessageId: "u2", permissionMode: "bypassPermissions" }, { signal: never() })));
  const after = await index();
  assert.equal(after.u1.tree, after.u2.tree);
  assert.equal(after.u1.pending, undefined);

  const done = await client.rewind({ userMessageId: "u1" });
  assert.deepEqual(byPath(done).map((f) => `${f.action} ${f.path}`), ["restore edited.txt", "restore shell.txt"]);
  assert.equal(read("edited.txt"), original["edited.txt"]);
  assert.equal(read("shell.txt"), original["shell.txt"]);
  assert.equal(read("written.txt"), "the user's own edit\n");
});
