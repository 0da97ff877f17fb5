import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addEntries, entryText, newEntryId, parseEntry, readArchive, shownEntry } from "./memory-archive.ts";

const ok = async () => {};

test("an entry's file is its front matter then its content exactly, read back the same", () => {
  const entry = { id: "arch_1", content: "---\nnot front matter\n---\n\nlast line\n", created_at: "2026-01-02T03:04:05.000Z", metadata: { a: "b\nc", n: [1, 2] } };
  const text = entryText(entry);
  assert.ok(text.startsWith('---\nid: arch_1\ncreated_at: 2026-01-02T03:04:05.000Z\nmetadata: {"a":"b\\nc","n":[1,2]}\n---\n'));
  assert.deepEqual(parseEntry("arch_1.md", text), entry);
  const bare = { id: "x", content: "", created_at: "2026-01-02T03:04:05.000Z" };
  assert.deepEqual(parseEntry("x.md", entryText(bare)), bare);
});

test("a file is an entry when its name is an id and its front matter gives a date; its name is its id", () => {
  assert.deepEqual(parseEntry("note.md", "---\r\nid: other\r\ncreated_at: '2026-03-04'\r\ntags: [a]\r\n---\r\nText"), { id: "note", content: "Text", created_at: "2026-03-04T00:00:00.000Z" });
  assert.equal(parseEntry("note.md", "---\nmetadata: {}\n---\nText"), undefined, "no created_at");
  assert.equal(parseEntry("note.md", "---\ncreated_at: last week\n---\nText"), undefined);
  assert.equal(parseEntry("note.md", "created_at: 2026-03-04\nText"), undefined, "no front matter");
  assert.equal(parseEntry("note.txt", "---\ncreated_at: 2026-03-04\n---\n"), undefined);
  assert.equal(parseEntry(".hidden.md", "---\ncreated_at: 2026-03-04\n---\n"), undefined);
  assert.equal(parseEntry("n.md", "---\ncreated_at: 2026-03-04\nmetadata: [1]\n---\nx")?.metadata, undefined, "metadata that is no object is left out");
});

test("entries are written into archive/, newest first when read, ids kept unless taken, a link out never followed", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "archive-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [a] = await addEntries(dir, [{ content: "first" }], new Set(), ok);
  const [b] = await addEntries(dir, [{ content: "second" }], new Set(), ok);
  assert.ok(b!.id > a!.id, "ids made later sort later");
  assert.deepEqual((await readArchive(dir)).map((e) => e.content), ["second", "first"]);
  const imported = await addEntries(dir, [{ id: a!.id, content: "again", created_at: "2020-01-01T00:00:00.000Z" }, { id: "kept", content: "kept" }, { id: "../out", content: "renamed" }], new Set([a!.id]), ok);
  assert.notEqual(imported[0]!.id, a!.id);
  assert.equal(imported[1]!.id, "kept");
  assert.match(imported[2]!.id, /^arch_/);
  assert.equal(await readFile(join(dir, "archive", "kept.md"), "utf8"), entryText(imported[1]!));
  assert.equal((await readArchive(dir)).at(-1)!.content, "again", "the oldest last");

  const outside = await mkdtemp(join(tmpdir(), "archive-out-"));
  t.after(() => rm(outside, { recursive: true, force: true }));
  const linked = join(dir, "linked");
  await mkdir(linked);
  await symlink(outside, join(linked, "archive"));
  await writeFile(join(outside, "x.md"), "---\ncreated_at: 2026-01-01\n---\nelsewhere");
  await assert.rejects(addEntries(linked, [{ content: "x" }], new Set(), ok), /symbolic link that leads outside the auto memory directory/);
  assert.deepEqual(await readArchive(linked), [], "what a link out holds is no entry");
  assert.notEqual(newEntryId(), newEntryId());
});

test("an entry is shown with its secrets hidden, in its content and its metadata", () => {
  const hide = (text: string) => text.replaceAll("s3cret", "***");
  assert.deepEqual(shownEntry({ id: "a", content: "key s3cret", created_at: "t", metadata: { k: ["s3cret", 1] } }, hide), { id: "a", content: "key ***", created_at: "t", metadata: { k: ["***", 1] } });
});
