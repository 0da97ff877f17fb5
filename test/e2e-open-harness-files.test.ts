// The Open Harness files domain: a session's workspace (the directory its runs work in) listed,
// read, written and deleted over REST, with every path kept inside it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1 } from "./open-harness-support.ts";

type FileInfo = { path: string; name: string; type: string; size_bytes?: number; mime_type?: string; modified_at: string };

test("a session's workspace is written, listed, read and deleted over REST, and its runs see the same files", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string, query = "") => `${V1}/files${rest}?session_id=${session.id}${query}`;
    assert.deepEqual(await (await api(files(""))).json(), { files: [], path: "/" }, "a new session's workspace is empty");

    const written = await api(files("/notes/todo.md"), { method: "PUT", body: "# Todo\n", headers: { "content-type": "text/markdown" } });
    assert.equal(written.status, 201);
    const { file, created } = (await written.json()) as { file: FileInfo; created: boolean };
    assert.equal(created, true);
    assert.deepEqual({ ...file, modified_at: undefined }, { path: "notes/todo.md", name: "todo.md", type: "file", size_bytes: 7, mime_type: "text/markdown", modified_at: undefined });
    assert.ok(Date.parse(file.modified_at));
    assert.equal(await readFile(join(h.workspace("alice", session.id), "notes", "todo.md"), "utf8"), "# Todo\n");
    const again = await api(files("/notes%2Ftodo.md"), { method: "PUT", body: "# Todo\n- test\n" });
    assert.equal(again.status, 200);
    assert.equal((await again.json()).created, false);
    await api(files("/data.bin"), { method: "PUT", body: new Uint8Array([0, 1, 2, 255]) });

    const top = await (await api(files(""))).json();
    assert.equal(top.path, "/");
    assert.deepEqual(top.files.map((f: FileInfo) => [f.path, f.type, f.mime_type]), [["data.bin", "file", "application/octet-stream"], ["notes", "directory", undefined]]);
    const all = await (await api(files("", "&recursive=true"))).json();
    assert.deepEqual(all.files.map((f: FileInfo) => f.path), ["data.bin", "notes", "notes/todo.md"]);
    const inNotes = await (await api(files("", "&path=notes"))).json();
    assert.equal(inNotes.path, "notes");
    assert.deepEqual(inNotes.files.map((f: FileInfo) => [f.path, f.size_bytes]), [["notes/todo.md", 14]]);
    // The spec's paths start at "/", the workspace itself.
    assert.deepEqual(await (await api(files("", "&path=%2Fnotes%2F"))).json(), inNotes);

    const read = await api(files("/notes/todo.md"));
    assert.equal(read.status, 200);
    assert.equal(read.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.equal(await read.text(), "# Todo\n- test\n");
    const binary = await api(files("/data.bin"));
    assert.equal(binary.headers.get("content-type"), "application/octet-stream");
    assert.deepEqual([...new Uint8Array(await binary.arrayBuffer())], [0, 1, 2, 255]);
    const download = await api(files("/notes/todo.md/download"));
    assert.match(download.headers.get("content-disposition") ?? "", /^attachment; filename="todo.md"/);

    // A run of the session works in the same directory.
    h.fake.push({ toolUses: [{ name: "Glob", input: { pattern: "**/*.md" } }] }, { text: "Found it." });
    const events = (await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "find notes", session_id: session.id }) }))).map((e) => e.data);
    assert.match(JSON.stringify(events.find((e) => e.type === "tool_result")!.output), /notes\/todo\.md/);

    const full = await api(files("/notes"), { method: "DELETE" });
    assert.equal(full.status, 409);
    assert.match((await full.json()).error.message, /not empty.*recursive/);
    assert.equal((await api(files("/notes/todo.md"), { method: "DELETE" })).status, 204);
    const gone = await api(files("/notes/todo.md"));
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).error.code, "file_not_found");
    await api(files("/notes/again.md"), { method: "PUT", body: "x" });
    assert.equal((await api(files("/notes", "&recursive=true"), { method: "DELETE" })).status, 204);
    assert.deepEqual((await (await api(files(""))).json()).files.map((f: FileInfo) => f.path), ["data.bin"]);
  } finally {
    await h.close();
  }
});

test("paths that would leave the workspace, bad parameters, other users' sessions and bodies too large are refused, naming the problem", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    await writeFile(join(outside, "secret.txt"), "secret");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string, query = "") => `${V1}/files${rest}?session_id=${session.id}${query}`;
    await api(files("/inside.txt"), { method: "PUT", body: "mine" });
    await symlink(outside, join(h.workspace("alice", session.id), "out"));
    await symlink("inside.txt", join(h.workspace("alice", session.id), "alias.txt"));
    const error = async (response: Response) => ({ status: response.status, ...(await response.json()).error });

    let e = await error(await api(files("/a%2F..%2F..%2Fsecret.txt")));
    assert.equal(e.status, 400);
    assert.equal(e.code, "invalid_request");
    assert.match(e.message, /path: .*"\.\."/);
    // A path from "/" is the workspace's, as the spec writes them: /etc/passwd is its etc/passwd.
    e = await error(await api(files("/%2Fetc%2Fpasswd")));
    assert.equal(e.status, 404);
    assert.equal(e.code, "file_not_found");
    e = await error(await api(files("/out/secret.txt")));
    assert.equal(e.status, 400);
    assert.match(e.message, /path: .*symbolic link.*outside/);
    e = await error(await api(files("/out/new.txt"), { method: "PUT", body: "no" }));
    assert.equal(e.status, 400);
    await assert.rejects(readFile(join(outside, "new.txt")));
    e = await error(await api(files("", "&path=out")));
    assert.equal(e.status, 400);
    e = await error(await api(files("", "&path=%2F..%2Fsecret.txt")));
    assert.equal(e.status, 400);
    assert.match(e.message, /path: .*"\.\."/);
    const fromRoot = await (await api(files("", "&path=%2F"))).json();
    assert.equal(fromRoot.path, "/");
    assert.ok(fromRoot.files.some((f: FileInfo) => f.path === "inside.txt"));
    // A link that stays inside is followed; one that leads out is not listed.
    assert.equal(await (await api(files("/alias.txt"))).text(), "mine");
    assert.deepEqual((await (await api(files(""))).json()).files.map((f: FileInfo) => f.path), ["alias.txt", "inside.txt"]);
    // Deleting a link removes the link, never what it leads to.
    assert.equal((await api(files("/out"), { method: "DELETE" })).status, 204);
    assert.equal(await readFile(join(outside, "secret.txt"), "utf8"), "secret");

    e = await error(await api(`${V1}/files`));
    assert.equal(e.status, 400);
    assert.match(e.message, /session_id/);
    e = await error(await api(files("", "&recursive=maybe")));
    assert.match(e.message, /recursive/);
    e = await error(await api(files(""), { headers: { "x-harness-user": "bob" } }));
    assert.equal(e.status, 404);
    assert.equal(e.code, "session_not_found");
    e = await error(await api(files("/big.bin"), { method: "PUT", body: new Uint8Array(10 * 1024 * 1024 + 1) }));
    assert.equal(e.status, 413);
    assert.match(e.message, /10 MiB/);
    e = await error(await api(files("/inside.txt/x"), { method: "PUT", body: "x" }));
    assert.equal(e.status, 400);
    assert.match(e.message, /not a directory/);

    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.equal(caps.files.supported, true);
    assert.deepEqual(caps.files.operations.sort(), ["files.delete", "files.download", "files.downloadBatch", "files.list", "files.mkdir", "files.read", "files.search", "files.upload", "files.uploadBatch", "files.write"]);
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});
