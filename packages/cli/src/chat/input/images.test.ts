import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { imageStore } from "./images.ts";

function project(t: { after(fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), "harness-images-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "project", "docs"), { recursive: true });
  return { root: dir, project: join(dir, "project") };
}

test("an image saved is kept under .harness/images/ of the project, out of git, and named by a mention relative to it", (t) => {
  const { project: dir } = project(t);
  const kept = imageStore(dir).save(Buffer.from("png bytes"), "png");
  assert.ok(kept.ok);
  assert.match(kept.mention, /^@\.harness\/images\/image-\d{8}-\d{6}-[0-9a-f]{6}\.png$/);
  assert.equal(readFileSync(join(dir, kept.mention.slice(1)), "utf8"), "png bytes");
  assert.equal(readFileSync(join(dir, ".harness", "images", ".gitignore"), "utf8"), "*\n");
});

test("an image file pasted by its path is named where it is inside the project, and copied in from elsewhere", (t) => {
  const { root, project: dir } = project(t);
  writeFileSync(join(dir, "docs", "my logo.png"), "inside");
  writeFileSync(join(root, "outside.JPG"), "outside");
  const store = imageStore(dir);
  assert.deepEqual(store.adopt(join(dir, "docs", "my logo.png")), { ok: true, mention: "@docs/my\\ logo.png" });
  const copied = store.adopt(join(root, "outside.JPG"));
  assert.ok(copied.ok);
  assert.match(copied.mention, /^@\.harness\/images\/image-.*\.jpg$/);
  assert.equal(readFileSync(join(dir, copied.mention.slice(1)), "utf8"), "outside");
  assert.deepEqual(readdirSync(root).sort(), ["outside.JPG", "project"], "the file pasted stays where it was");
});
