// The Open Harness files domain on the odd entries a run can leave in a workspace: hard links to
// files elsewhere, named pipes, links in a loop, names no header can carry as they are.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, link, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

test("a write replaces the file it names: never what a hard link shares, never a pipe that waits, its mode kept", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string) => `${V1}/files${rest}?session_id=${session.id}`;
    await api(files("/keep.txt"), { method: "PUT", body: "mine" });
    const workspace = h.workspace("alice", session.id);
    await writeFile(join(outside, "shared.txt"), "theirs");
    await link(join(outside, "shared.txt"), join(workspace, "hard.txt"));
    execFileSync("mkfifo", [join(workspace, "pipe")]);
    await writeFile(join(workspace, "run.sh"), "#!/bin/sh\n");
    await chmod(join(workspace, "run.sh"), 0o755);

    const hard = await api(files("/hard.txt"), { method: "PUT", body: "new", signal: AbortSignal.timeout(15_000) });
    assert.equal(hard.status, 200);
    assert.equal(await readFile(join(outside, "shared.txt"), "utf8"), "theirs", "the file the hard link shares is left as it was");
    assert.equal(await readFile(join(workspace, "hard.txt"), "utf8"), "new");

    const read = await api(files("/pipe"), { signal: AbortSignal.timeout(15_000) });
    assert.equal(read.status, 400);
    assert.match((await read.json()).error.message, /path: "pipe" is not a regular file/);
    const pipe = await api(files("/pipe"), { method: "PUT", body: "flows", signal: AbortSignal.timeout(15_000) });
    assert.equal(pipe.status, 200, "a pipe in the way is replaced, not written into (which waits for a reader forever)");
    assert.equal(await readFile(join(workspace, "pipe"), "utf8"), "flows");

    assert.equal((await api(files("/run.sh"), { method: "PUT", body: "#!/bin/sh\necho hi\n" })).status, 200);
    assert.equal((await stat(join(workspace, "run.sh"))).mode & 0o777, 0o755, "a script stays executable");
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});

test("links in a loop are refused naming the path, never the server's directories; any file name is read and downloaded", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string, query = "") => `${V1}/files${rest}?session_id=${session.id}${query}`;
    await api(files("/keep.txt"), { method: "PUT", body: "mine" });
    const workspace = h.workspace("alice", session.id);
    await symlink("loop", join(workspace, "loop"));
    const refusals = {
      read: await api(files("/loop")),
      list: await api(files("", "&path=loop%2Fsub")),
      "mkdir below": await api(`${V1}/files/mkdir`, { method: "POST", body: JSON.stringify({ session_id: session.id, path: "loop/sub" }) }),
    };
    for (const [what, response] of Object.entries(refusals)) {
      const body = await response.text();
      assert.equal(response.status, 400, `${what}: ${body}`);
      assert.match(JSON.parse(body).error.message, /path: "loop.*symbolic links .*loop/, what);
      assert.ok(!body.includes(h.dataDir), `${what} does not tell where the server keeps its data: ${body}`);
    }
    // A write replaces the link, as it does one that leads nowhere.
    assert.equal((await api(files("/loop"), { method: "PUT", body: "x" })).status, 200);
    assert.equal(await (await api(files("/loop"))).text(), "x");

    // The data directory holds the workspace: a link up to it leads out all the same.
    await symlink(h.dataDir, join(workspace, "data"));
    assert.equal((await api(files("/data/harness.db"))).status, 400);
    assert.equal((await api(files("", "&path=data"))).status, 400);
    assert.ok(!(await (await api(files(""))).json()).files.some((f: { path: string }) => f.path === "data"));

    await writeFile(join(workspace, "日本.txt"), "utf-8 name");
    await writeFile(join(workspace, "bell\x07.txt"), "control");
    const named = await api(files(`/${encodeURIComponent("日本.txt")}/download`));
    assert.equal(named.status, 200);
    assert.equal(named.headers.get("content-disposition"), `attachment; filename="__.txt"; filename*=UTF-8''${encodeURIComponent("日本.txt")}`);
    assert.equal(await named.text(), "utf-8 name");
    const bell = await api(files(`/${encodeURIComponent("bell\x07.txt")}/download`));
    assert.equal(bell.status, 200);
    assert.equal(bell.headers.get("content-disposition"), `attachment; filename="bell_.txt"; filename*=UTF-8''bell%07.txt`);
    // A name that starts with "~" (an editor's lock file) is a file here, not a home.
    await writeFile(join(workspace, "~$report.docx"), "lock");
    assert.equal(await (await api(files(`/${encodeURIComponent("~$report.docx")}`))).text(), "lock");
    assert.equal((await api(files(`/${encodeURIComponent("~$report.docx")}`), { method: "DELETE" })).status, 204);
    const home = await api(files("/~/notes.txt"));
    assert.equal(home.status, 400);
    assert.match((await home.json()).error.message, /path: .*"~\/" names a home/);
    // A name a run gave a line break is read and deleted as any other.
    await writeFile(join(workspace, "two\nlines.txt"), "broken");
    assert.equal(await (await api(files(`/${encodeURIComponent("two\nlines.txt")}`))).text(), "broken");
    assert.equal((await api(files(`/${encodeURIComponent("two\nlines.txt")}`), { method: "DELETE" })).status, 204);
  } finally {
    await h.close();
  }
});

test("the files of a session whose stored state is damaged are still listed, read and written: they are not in that state", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string) => `${V1}/files${rest}?session_id=${session.id}`;
    assert.equal((await api(files("/notes.md"), { method: "PUT", body: "kept" })).status, 201);
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(join(h.dataDir, "harness.db"));
    db.prepare("UPDATE sessions SET state = '{not json' WHERE user_id = 'alice' AND session_id = ?").run(session.id);
    db.close();

    const list = await api(files(""));
    assert.equal(list.status, 200, await list.clone().text());
    assert.deepEqual((await list.json()).files.map((f: { path: string }) => f.path), ["notes.md"]);
    assert.equal(await (await api(files("/notes.md"))).text(), "kept");
    assert.equal((await api(files("/more.md"), { method: "PUT", body: "more" })).status, 201);
    assert.equal((await api(`${V1}/hooks?session_id=${session.id}`)).status, 200, "nor are its hooks");
    assert.equal((await api(files(""), { headers: { "x-harness-user": "bob" } })).status, 404, "and it is still alice's alone");
  } finally {
    await h.close();
  }
});
