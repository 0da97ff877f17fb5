// The Open Harness files uploads: one file, or many keeping their folders, sent as multipart/form-data
// into a session's workspace; never out of it, never past the size limits, and never over a file
// unless asked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

/** A form posted as alice (fetch sets its multipart Content-Type). */
const post = (base: string, path: string, body: BodyInit, headers: Record<string, string> = {}) => fetch(`${base}${V1}${path}`, { method: "POST", body, headers: { "x-harness-user": "alice", ...headers } });

function form(fields: Record<string, string>, files: [field: string, name: string, content: string | Uint8Array<ArrayBuffer>][] = []): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const [field, name, content] of files) data.append(field, new Blob([content]), name);
  return data;
}

/** A server with a session of alice's to upload into, and a folder outside its workspace; both
 * done with when the test ends. */
async function uploadTarget(t: { after(fn: () => unknown): void }) {
  const h = await startHarness();
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  t.after(async () => {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  });
  const { session } = await (await apiAs(h.server.url)(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
  return { h, outside, session: session as { id: string }, ws: () => h.workspace("alice", session.id) };
}

async function answer(response: Response) {
  return { status: response.status, body: await response.json() };
}

test("a file is uploaded to a path, or by its name into a folder; one there is replaced only with overwrite=true", async (t) => {
  const { h, outside, session, ws } = await uploadTarget(t);
  const upload = async (fields: Record<string, string>, files: [string, string, string | Uint8Array<ArrayBuffer>][] = [["file", "notes.md", "# Notes\n"]]) => answer(await post(h.server.url, "/files/upload", form({ session_id: session.id, ...fields }, files)));

  let r = await upload({ path: "/docs/notes.md" });
  assert.equal(r.status, 201);
  assert.deepEqual({ ...r.body.file, modified_at: undefined }, { path: "docs/notes.md", name: "notes.md", type: "file", size_bytes: 8, mime_type: "text/markdown", modified_at: undefined });
  assert.equal(r.body.created, true);
  assert.equal(await readFile(join(ws(), "docs", "notes.md"), "utf8"), "# Notes\n");
  r = await upload({ path: "docs/notes.md" }, [["file", "x", "changed"]]);
  assert.equal(r.status, 409);
  assert.equal(r.body.error.code, "file_exists");
  assert.match(r.body.error.message, /overwrite=true/);
  assert.equal(await readFile(join(ws(), "docs", "notes.md"), "utf8"), "# Notes\n", "left as it was");
  r = await upload({ path: "docs/notes.md", overwrite: "true" }, [["file", "x", "changed"]]);
  assert.equal(r.status, 200);
  assert.equal(r.body.created, false);
  assert.equal(await readFile(join(ws(), "docs", "notes.md"), "utf8"), "changed");
  r = await upload({ path: "/" }, [["file", "top.bin", new Uint8Array([0, 1, 255])]]);
  assert.equal(r.body.file.path, "top.bin");
  r = await upload({ path: "docs/" });
  assert.equal(r.status, 409, "a path ending in / is a folder: the file goes in it by its name, not over one there");
  assert.match(r.body.error.message, /"docs\/notes\.md" exists/);
  r = await upload({ path: "docs/" }, [["file", "more.md", "more"]]);
  assert.equal(r.body.file.path, "docs/more.md");
  // The session may be named in the query instead.
  const data = form({ path: "q.txt" }, [["file", "q.txt", "q"]]);
  assert.equal((await post(h.server.url, `/files/upload?session_id=${session.id}`, data)).status, 201);

  await writeFile(join(outside, "secret.txt"), "secret");
  await symlink(outside, join(ws(), "out"));
  const refused = async (fields: Record<string, string>, files: [string, string, string | Uint8Array<ArrayBuffer>][] | undefined, status: number, message: RegExp) => {
    const got = await upload(fields, files);
    assert.equal(got.status, status, JSON.stringify(got.body));
    assert.match(got.body.error.message, message);
    assert.equal(got.body.error.operation ?? "files.upload", "files.upload");
  };
  await refused({ path: "out/new.txt" }, undefined, 400, /symbolic link that leads outside/);
  await refused({ path: "out/secret.txt", overwrite: "true" }, undefined, 400, /symbolic link that leads outside/);
  assert.deepEqual(await readdir(outside), ["secret.txt"], "nothing written outside");
  assert.equal(await readFile(join(outside, "secret.txt"), "utf8"), "secret");
  await refused({ path: "../escape.txt" }, undefined, 400, /path: .*"\.\."/);
  await refused({ path: "/" }, [["file", "../up.txt", "x"]], 400, /filename: .*"\.\."/);
  await refused({}, undefined, 400, /path: required/);
  await refused({ path: "a.txt" }, [], 400, /file: required/);
  await refused({ path: "a.txt", file: "text, not a file" }, [], 400, /file: required, as a part with a filename/);
  await refused({ path: "a.txt", overwrite: "yes" }, undefined, 400, /overwrite: must be true or false/);
  await refused({ path: "a.txt", colour: "red" }, undefined, 400, /colour: not a field of files.upload/);
  await refused({ path: "docs" }, undefined, 400, /"docs" is a directory/);
  await refused({ path: "big.bin" }, [["file", "big.bin", new Uint8Array(10 * 1024 * 1024 + 1)]], 413, /10 MiB/);
  const huge = await post(h.server.url, "/files/upload", new Uint8Array(12 * 1024 * 1024), { "content-type": `multipart/form-data; boundary=x`, "content-length": String(12 * 1024 * 1024) });
  assert.equal(huge.status, 413, "a body past the limit is refused before it is read whole");
  const malformed = await answer(await post(h.server.url, `/files/upload?session_id=${session.id}`, "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nno end", { "content-type": "multipart/form-data; boundary=x" }));
  assert.equal(malformed.status, 400);
  assert.match(malformed.body.error.message, /not well-formed multipart\/form-data/);
  const noBoundary = await answer(await post(h.server.url, `/files/upload?session_id=${session.id}`, "x", { "content-type": "multipart/form-data" }));
  assert.match(noBoundary.body.error.message, /no boundary/);
  const json = await answer(await post(h.server.url, `/files/upload?session_id=${session.id}`, "{}", { "content-type": "application/json" }));
  assert.equal(json.status, 415);
  assert.match(json.body.error.message, /multipart\/form-data/);
  const bob = await fetch(`${h.server.url}${V1}/files/upload`, { method: "POST", body: form({ session_id: session.id, path: "b.txt" }, [["file", "b", "b"]]), headers: { "x-harness-user": "bob" } });
  assert.equal(bob.status, 404, "another user's session is not found");
});

test("many files are uploaded at once below a base path, keeping their folders; those there are skipped, bad ones listed with why", async (t) => {
  const { h, outside, session, ws } = await uploadTarget(t);
  const batch = async (fields: Record<string, string>, files: [string, string, string | Uint8Array<ArrayBuffer>][]) => answer(await post(h.server.url, "/files/upload-batch", form({ session_id: session.id, ...fields }, files)));

  let r = await batch({ base_path: "/project" }, [["files", "src/a.ts", "a"], ["files", "src/lib/b.ts", "b"], ["files", "README.md", "r"]]);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.uploaded.map((f: { path: string }) => f.path), ["project/src/a.ts", "project/src/lib/b.ts", "project/README.md"]);
  assert.deepEqual([r.body.skipped, r.body.errors], [[], []]);
  assert.equal(await readFile(join(ws(), "project", "src", "lib", "b.ts"), "utf8"), "b");

  await writeFile(join(outside, "x.ts"), "outside");
  await symlink(outside, join(ws(), "project", "out"));
  r = await batch({ base_path: "project" }, [["files", "src/a.ts", "again"], ["files", "../../escape.ts", "e"], ["files", "out/x.ts", "o"], ["files", "src", "a folder"], ["files[]", "new.ts", "n"]]);
  assert.deepEqual(r.body.uploaded.map((f: { path: string }) => f.path), ["project/new.ts"]);
  assert.deepEqual(r.body.skipped, ["project/src/a.ts"]);
  assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["../../escape.ts", "project/out/x.ts", "project/src"]);
  assert.match(r.body.errors[0].error, /filename: .*"\.\."/);
  assert.match(r.body.errors[1].error, /symbolic link that leads outside/);
  assert.match(r.body.errors[2].error, /is a directory/);
  assert.equal(await readFile(join(ws(), "project", "src", "a.ts"), "utf8"), "a");
  assert.equal(await readFile(join(outside, "x.ts"), "utf8"), "outside");
  r = await batch({ base_path: "project", overwrite: "true" }, [["files", "src/a.ts", "again"]]);
  assert.deepEqual(r.body.uploaded.map((f: { path: string }) => f.path), ["project/src/a.ts"]);
  assert.equal(await readFile(join(ws(), "project", "src", "a.ts"), "utf8"), "again");
  r = await batch({}, [["files", "root.txt", "at the top"]]);
  assert.deepEqual(r.body.uploaded.map((f: { path: string }) => f.path), ["root.txt"], "base_path is / by default");
  r = await batch({}, [["files", "big.bin", new Uint8Array(10 * 1024 * 1024 + 1)], ["files", "small.txt", "s"]]);
  assert.deepEqual(r.body.uploaded.map((f: { path: string }) => f.path), ["small.txt"]);
  assert.match(r.body.errors[0].error, /larger than 10 MiB/);

  const refused = async (fields: Record<string, string>, files: [string, string, string | Uint8Array<ArrayBuffer>][], status: number, message: RegExp) => {
    const got = await batch(fields, files);
    assert.equal(got.status, status, JSON.stringify(got.body));
    assert.match(got.body.error.message, message);
  };
  await refused({ base_path: "out/.." }, [["files", "a", "a"]], 400, /base_path: .*"\.\."/);
  await refused({}, [], 400, /files: required/);
  const many = Array.from({ length: 501 }, (_, i): [string, string, string] => ["files", `f${i}.txt`, "x"]);
  await refused({}, many, 413, /501 given, at most 500/);
  assert.ok(!(await readdir(ws())).includes("f0.txt"), "none of a refused batch is written");
});
