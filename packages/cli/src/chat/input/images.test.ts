import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { forgetOldImages, imageStore } from "./images.ts";

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

test("images the chat kept more than 30 days ago are deleted; newer ones, and files it did not name, stay", async (t) => {
  const { project: dir } = project(t);
  const store = imageStore(dir);
  const kept = join(dir, ".harness", "images");
  const mentioned = (attached: ReturnType<typeof store.save>) => (attached.ok ? join(dir, attached.mention.slice(1)) : assert.fail(attached.note));
  const old = mentioned(store.save(Buffer.from("old"), "png"));
  const recent = mentioned(store.save(Buffer.from("recent"), "jpg"));
  const now = Date.now();
  const daysAgo = (days: number) => new Date(now - days * 24 * 60 * 60 * 1000);
  // Not of the chat's naming, or not a file: someone else's, however old.
  for (const name of ["diagram.png", "image-old.png", "image-20240101-000000-abcdef.png.bak"]) writeFileSync(join(kept, name), name);
  mkdirSync(join(kept, "image-20240101-000000-abcdef.png"));
  writeFileSync(join(dir, "docs", "logo.png"), "theirs");
  symlinkSync(join(dir, "docs", "logo.png"), join(kept, "image-20240101-000000-fedcba.png"));
  for (const name of readdirSync(kept)) utimesSync(join(kept, name), daysAgo(400), daysAgo(400));
  utimesSync(old, daysAgo(31), daysAgo(31));
  utimesSync(recent, daysAgo(29), daysAgo(29));

  assert.equal(await forgetOldImages(dir, now), 1);
  assert.deepEqual(readdirSync(kept).sort(), [".gitignore", basename(recent), "diagram.png", "image-20240101-000000-abcdef.png", "image-20240101-000000-abcdef.png.bak", "image-20240101-000000-fedcba.png", "image-old.png"].sort());
  assert.equal(readFileSync(join(dir, "docs", "logo.png"), "utf8"), "theirs");
});

test("forgetting old images never fails: no images kept yet, or a directory that cannot be read, deletes nothing", async (t) => {
  const { project: dir } = project(t);
  assert.equal(await forgetOldImages(dir), 0);
  mkdirSync(join(dir, ".harness"));
  writeFileSync(join(dir, ".harness", "images"), "not a directory");
  assert.equal(await forgetOldImages(dir), 0);
});

test("an image in the project whose path a mention would misread (a #, a leading bracket or accent, a tab) is copied in under a name it reads", (t) => {
  const { project: dir } = project(t);
  const store = imageStore(dir);
  for (const name of ["docs/shot#2.png", "(draft).png", "é.png", "docs/tab\there.png"]) {
    writeFileSync(join(dir, name), name);
    const adopted = store.adopt(join(dir, name));
    assert.ok(adopted.ok, name);
    assert.match(adopted.mention, /^@\.harness\/images\/image-.*\.png$/, name);
    assert.equal(readFileSync(join(dir, adopted.mention.slice(1)), "utf8"), name);
  }
  writeFileSync(join(dir, "docs", "it's (v2).png"), "quoted");
  assert.deepEqual(store.adopt(join(dir, "docs", "it's (v2).png")), { ok: true, mention: "@docs/it's\\ (v2).png" }, "one it reads is named where it is");
  assert.match((store.adopt(join(dir, "gone.png")) as { note: string }).note, /^cannot read .*gone\.png: ENOENT/, "one gone meanwhile is a note, not a throw");
});

test("an image kept, saved or copied in, is the user's alone to read, whatever the mode of the file it came from", (t) => {
  const { root, project: dir } = project(t);
  writeFileSync(join(root, "shared.png"), "shared", { mode: 0o644 });
  const store = imageStore(dir);
  for (const kept of [store.save(Buffer.from("clip"), "png"), store.adopt(join(root, "shared.png"))]) {
    assert.ok(kept.ok);
    assert.equal(statSync(join(dir, kept.mention.slice(1))).mode & 0o777, 0o600, kept.mention);
  }
});

test("an image pasted by a path in the project that leads out of it through a link is copied in: the runs read the project's files without asking, not what a link leads to", (t) => {
  const { root, project: dir } = project(t);
  writeFileSync(join(root, "private.png"), "outside");
  symlinkSync(join(root, "private.png"), join(dir, "docs", "linked.png"));
  symlinkSync(join(root), join(dir, "up"));
  const store = imageStore(dir);
  for (const pasted of [join(dir, "docs", "linked.png"), join(dir, "up", "private.png")]) {
    const adopted = store.adopt(pasted);
    assert.ok(adopted.ok);
    assert.match(adopted.mention, /^@\.harness\/images\/image-.*\.png$/, pasted);
    assert.equal(readFileSync(join(dir, adopted.mention.slice(1)), "utf8"), "outside");
  }
  // A project reached through a link itself: a file in it is still named where it is.
  symlinkSync(dir, join(root, "via-link"));
  writeFileSync(join(dir, "docs", "here.png"), "here");
  assert.deepEqual(imageStore(join(root, "via-link")).adopt(join(dir, "docs", "here.png")), { ok: true, mention: "@docs/here.png" });
});
