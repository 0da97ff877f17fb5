import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { pastedImagePath } from "./pasted-image-path.ts";

function place(t: { after(fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), "harness-pasted-path-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, "home");
  mkdirSync(join(home, "Pictures"), { recursive: true });
  for (const name of ["shot.png", "my shot (1).PNG", "photo.jpeg", "it's.webp", "home.gif"]) writeFileSync(join(dir, name), "x");
  writeFileSync(join(home, "Pictures", "a b.jpg"), "x");
  writeFileSync(join(dir, "notes.txt"), "x");
  mkdirSync(join(dir, "folder.png"));
  return { dir, home };
}

test("a pasted path of an image, as terminals paste a dragged file, names the file", (t) => {
  const { dir, home } = place(t);
  assert.equal(pastedImagePath(join(dir, "shot.png"), home), join(dir, "shot.png"));
  assert.equal(pastedImagePath(`  ${join(dir, "shot.png")}\n`, home), join(dir, "shot.png"), "blanks around it");
  assert.equal(pastedImagePath(join(dir, "my\\ shot\\ \\(1\\).PNG"), home), join(dir, "my shot (1).PNG"), "backslash escapes, any case of extension");
  assert.equal(pastedImagePath(`'${join(dir, "my shot (1).PNG")}'`, home), join(dir, "my shot (1).PNG"), "single quotes");
  assert.equal(pastedImagePath(`"${join(dir, "photo.jpeg")}"`, home), join(dir, "photo.jpeg"), "double quotes");
  assert.equal(pastedImagePath(`'${dir}/it'\\''s.webp'`, home), join(dir, "it's.webp"), "a quote inside single quotes, as shells quote it");
  assert.equal(pastedImagePath(pathToFileURL(join(dir, "my shot (1).PNG")).href, home), join(dir, "my shot (1).PNG"), "a file:// URL, percent-decoded");
  assert.equal(pastedImagePath("~/Pictures/a\\ b.jpg", home), join(home, "Pictures", "a b.jpg"), "~ is the home");
});

test("a paste that is not one path of an existing image file stays text", (t) => {
  const { dir, home } = place(t);
  assert.equal(pastedImagePath(join(dir, "missing.png"), home), undefined, "no such file");
  assert.equal(pastedImagePath(join(dir, "notes.txt"), home), undefined, "not an image");
  assert.equal(pastedImagePath(join(dir, "folder.png"), home), undefined, "a directory");
  assert.equal(pastedImagePath("shot.png", home), undefined, "a relative path is text (an @path names the project's files)");
  assert.equal(pastedImagePath(`${join(dir, "shot.png")} ${join(dir, "photo.jpeg")}`, home), undefined, "two paths");
  assert.equal(pastedImagePath(`${join(dir, "shot.png")}\n${join(dir, "photo.jpeg")}`, home), undefined, "two lines");
  assert.equal(pastedImagePath(`look at ${join(dir, "shot.png")}`, home), undefined, "words and a path");
  assert.equal(pastedImagePath("https://example.com/shot.png", home), undefined, "a web address");
  assert.equal(pastedImagePath(`'${join(dir, "shot.png")}`, home), undefined, "an unclosed quote");
  assert.equal(pastedImagePath("", home), undefined);
});
