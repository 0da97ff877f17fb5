// --append-system-prompt-file on a chat of its own: the file's text is appended to every run's
// system prompt, as --append-system-prompt's is; read when the chat starts, and refused with its
// inline form or on a shared server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "../args.ts";
import { chatRunOptions } from "./run-flags.ts";

test("a chat of its own takes --append-system-prompt-file: every run carries the file's text", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-prompt-file-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "extra.txt"), "Always answer in French.\n");
  const parsed = parseArgs(["--append-system-prompt-file", "extra.txt", "--", "hi"]);
  assert.equal(parsed.kind, "chat");
  const flags = parsed.kind === "chat" ? parsed.runFlags! : {};
  assert.deepEqual(flags, { appendSystemPromptFile: "extra.txt" });
  const env = { HARNESS_BACKEND: "" };
  const options = await chatRunOptions(flags, dir, env, () => {});
  assert.deepEqual(options, { ok: true, runOptions: { appendSystemPrompt: "Always answer in French.\n" } });
  const missing = await chatRunOptions({ appendSystemPromptFile: "gone.txt" }, dir, env, () => {});
  assert.deepEqual(missing, { ok: false, message: `--append-system-prompt-file: cannot read ${join(dir, "gone.txt")}: no such file` });
});

test("--append-system-prompt-file is refused with --append-system-prompt, and on a shared server", () => {
  const both = parseArgs(["--append-system-prompt", "x", "--append-system-prompt-file", "f", "--", "hi"]);
  assert.deepEqual(both.kind === "usage-error" && both.message, "--append-system-prompt and --append-system-prompt-file cannot go together: give one of them");
  const shared = parseArgs(["chat", "--url", "http://h", "--append-system-prompt-file", "f", "--", "hi"]);
  assert.match(shared.kind === "usage-error" ? shared.message : "", /^--append-system-prompt-file cannot be given to a chat on a shared server/);
});
