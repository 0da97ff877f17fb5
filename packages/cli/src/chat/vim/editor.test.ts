import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeEditorMode } from "./editor.ts";

test("a ~/.claude.json that is not JSON leaves vim mode off and says which file and why", (t) => {
  const home = mkdtempSync(join(tmpdir(), "harness-vim-home-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  writeFileSync(join(home, ".claude.json"), '{"editorMode": "vim",');
  const mode = claudeEditorMode(home, {});
  assert.equal(mode.vim, false);
  assert.match(mode.problem ?? "", /\.claude\.json.*: its editorMode is not read$/);
});

test("a ~/.claude.json without editorMode, or none at all, leaves vim mode off with nothing to say", (t) => {
  const home = mkdtempSync(join(tmpdir(), "harness-vim-home-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  assert.deepEqual(claudeEditorMode(home, {}), { vim: false });
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ numStartups: 1 }));
  assert.deepEqual(claudeEditorMode(home, {}), { vim: false });
});
