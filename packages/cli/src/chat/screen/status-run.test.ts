import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HarnessState } from "@harness/protocol";
import { startStatusLine } from "./status-line.ts";

const state = (model: string): HarnessState => ({ status: "idle", messages: [], config: { model } });

function statusLine(t: { after(fn: () => unknown): void }, command: string, runForMs?: number) {
  const cwd = mkdtempSync(join(tmpdir(), "harness-status-run-"));
  const shown: (string | undefined)[] = [];
  const notes: string[] = [];
  const line = startStatusLine({ command, cwd, sessionId: "s1", version: "0.1.0", env: process.env, show: (text) => shown.push(text), note: (text) => notes.push(text), ...(runForMs && { runForMs }) });
  t.after(() => (line.close(), rmSync(cwd, { recursive: true, force: true })));
  const until = async (done: () => boolean) => {
    for (const start = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 10))) if (Date.now() - start > 20_000) assert.fail(`never: shown ${JSON.stringify(shown)}, notes ${JSON.stringify(notes)}`);
  };
  return { line, shown, notes, cwd, until };
}

test("the command reads the JSON on its stdin in the project, and its first line is shown, cursor moves dropped", async (t) => {
  const s = statusLine(t, `cat > input.json; printf '\\033[1mbold\\033[0m\\033[2Jx\\tthere\\nmore\\n'`);
  s.line.update(state("claude-opus-4-1"));
  await s.until(() => s.shown.length === 1);
  assert.equal(s.shown[0], "\x1b[1mbold\x1b[0mxthere");
  const input = JSON.parse(readFileSync(join(s.cwd, "input.json"), "utf8"));
  assert.deepEqual(input.model, { id: "claude-opus-4-1", display_name: "Opus 4.1" });
  assert.equal(input.session_id, "s1");
  assert.deepEqual(input.workspace, { current_dir: s.cwd, project_dir: s.cwd });
  assert.equal(input.context_window.context_window_size, 200_000);
  assert.equal("transcript_path" in input, false);
});

// The time limit leaves a busy machine room to run the quick command (bash, cat and grep) well within it.
test("a newer update stops a run still going; a run over its time is stopped and said once", async (t) => {
  const s = statusLine(t, `input=$(cat); case "$input" in *slow*) sleep 10;; esac; echo "$input" | grep -o '"id":"[^"]*"'`, 2000);
  s.line.update(state("slow-1"));
  await new Promise((resolve) => setTimeout(resolve, 100));
  s.line.update(state("fast"));
  await s.until(() => s.shown.length === 1);
  assert.equal(s.shown[0], '"id":"fast"');
  s.line.update(state("slow-2"));
  await s.until(() => s.notes.length === 1);
  assert.deepEqual(s.notes, ["(the statusLine command ran longer than 2 s and was stopped)"]);
  await s.until(() => s.shown.length === 2);
  assert.equal(s.shown[1], undefined, "a command stopped blanks the line");
  s.line.update(state("slow-3"));
  await s.until(() => s.shown.length === 3);
  assert.equal(s.notes.length, 1);
});
