import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashOf, skillVersions } from "./skill-versions.ts";

const file = (path: string, text: string) => ({ path, data: new Uint8Array(Buffer.from(text)) });

test("versions are kept whole, the oldest dropped beyond the count or the bytes, never the newest", async () => {
  const dir = await mkdtemp(join(tmpdir(), "harness-versions-"));
  try {
    const store = skillVersions(dir, undefined, { maxVersions: 3, maxBytes: 10 });
    assert.deepEqual(await store.history("deploy"), { name: "deploy", next: 1, versions: [] });
    for (const text of ["a", "bb", "ccc", "dddd"]) await store.record("deploy", [file("SKILL.md", text), file("scripts/x.sh", "")], `set ${text}`);
    let history = await store.history("deploy");
    assert.deepEqual(history.versions.map((v) => [v.version, v.size_bytes, v.files]), [["2", 2, 2], ["3", 3, 2], ["4", 4, 2]]);
    assert.equal(history.current, "4");
    assert.deepEqual((await store.filesOf("deploy", "3"))!.map((f) => [f.path, Buffer.from(f.data).toString()]).sort(), [["SKILL.md", "ccc"], ["scripts/x.sh", ""]]);
    assert.equal(await store.filesOf("deploy", "1"), undefined);

    // Over the bytes alone: only the newest is left, however large.
    await store.record("deploy", [file("SKILL.md", "x".repeat(12))], "large");
    history = await store.history("deploy");
    assert.deepEqual(history.versions.map((v) => v.version), ["5"]);
    assert.deepEqual((await readdir(join(dir, (await readdir(dir))[0]!))).sort(), ["5", "index.json"]);

    await store.setCurrent("deploy", undefined);
    assert.equal((await store.history("deploy")).current, undefined);
    assert.deepEqual((await store.history("other")).versions, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a content hash is of the files' paths and bytes, whatever their order", () => {
  const one = hashOf([file("a", "1"), file("b", "2")]);
  assert.equal(one, hashOf([file("b", "2"), file("a", "1")]));
  assert.notEqual(one, hashOf([file("a", "12"), file("b", "")]));
  assert.notEqual(one, hashOf([file("a", "1"), file("c", "2")]));
  assert.match(one, /^sha256:[0-9a-f]{64}$/);
});
