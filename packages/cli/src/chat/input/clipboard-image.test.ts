import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_IMAGE_BYTES, readClipboardImage } from "./clipboard-image.ts";

/** A PATH holding only `tools` (name → sh script). */
function toolsPath(t: { after(fn: () => unknown): void }, tools: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-clipboard-tools-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, script] of Object.entries(tools)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return `${dir}:/usr/bin:/bin`;
}

test("the clipboard's image is read with the tool of the platform, the first image type it lists taken", async (t) => {
  const PATH = toolsPath(t, {
    "wl-paste": `if [ "$1" = "--list-types" ]; then printf 'text/html\\nimage/jpeg\\n'; elif [ "$2" = image/jpeg ]; then printf JPEG; fi`,
    pngpaste: `[ "$1" = - ] && printf PNG`,
  });
  assert.deepEqual(await readClipboardImage({ env: { PATH, WAYLAND_DISPLAY: "w" }, platform: "linux" }), { ok: true, bytes: Buffer.from("JPEG"), extension: "jpg" });
  assert.deepEqual(await readClipboardImage({ env: { PATH }, platform: "darwin" }), { ok: true, bytes: Buffer.from("PNG"), extension: "png" });
});

test("an empty clipboard, one failing, or no display to read one from is a note, not an error", async (t) => {
  const PATH = toolsPath(t, { xclip: `echo "Error: target TARGETS not available" >&2; exit 1` });
  assert.deepEqual(await readClipboardImage({ env: { PATH, DISPLAY: ":0" }, platform: "linux" }), { ok: false, note: "no image in the clipboard (Ctrl+V pastes images; the terminal pastes text)" });
  const none = await readClipboardImage({ env: { PATH }, platform: "linux" });
  assert.match(none.ok ? "" : none.note, /neither WAYLAND_DISPLAY nor DISPLAY is set/);
  const windows = await readClipboardImage({ env: { PATH }, platform: "win32" });
  assert.match(windows.ok ? "" : windows.note, /powershell\.exe, which is not on PATH/);
});

test("an image over the agent's limit is refused with a note saying the limit", async (t) => {
  const PATH = toolsPath(t, { "wl-paste": `if [ "$1" = "--list-types" ]; then echo image/png; else head -c ${MAX_IMAGE_BYTES + 1} /dev/zero; fi` });
  assert.deepEqual(await readClipboardImage({ env: { PATH, WAYLAND_DISPLAY: "w" }, platform: "linux" }), { ok: false, note: "the clipboard's image is larger than 64 MB, more than the agent reads" });
});

test("a clipboard tool that does not answer is given up on with a note saying so, not taken for an empty clipboard", async (t) => {
  const PATH = toolsPath(t, { "wl-paste": `if [ "$1" = "--list-types" ]; then sleep 5; else sleep 5; fi`, xclip: `if [ "$4" = TARGETS ]; then echo image/png; else sleep 5; fi` });
  const started = Date.now();
  assert.deepEqual(await readClipboardImage({ env: { PATH, WAYLAND_DISPLAY: "w" }, platform: "linux", timeoutMs: 300 }), { ok: false, note: "Ctrl+V could not read the clipboard: wl-paste did not answer in 0.3 s" });
  assert.deepEqual(await readClipboardImage({ env: { PATH, DISPLAY: ":0" }, platform: "linux", timeoutMs: 300 }), { ok: false, note: "Ctrl+V could not read the clipboard: xclip did not answer in 0.3 s" });
  assert.ok(Date.now() - started < 4_000, "neither waited for the tool");
});
