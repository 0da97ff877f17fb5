import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { decide } from "./decide.ts";
import { parseRule } from "./parse-rule.ts";
import type { PermissionContext, PermissionRule } from "./types.ts";

function rule(text: string, root: string): PermissionRule {
  const parsed = parseRule(text);
  if ("error" in parsed) throw new Error(parsed.error);
  return { ...parsed, text, root };
}

test("the auto memory directory: its files are written without asking; deny rules and links out of it still hold", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "auto-memory-perms-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const memory = path.join(dir, "home", ".claude", "projects", "-work", "memory");
  mkdirSync(memory, { recursive: true });
  mkdirSync(path.join(dir, "secret"));
  symlinkSync(path.join(dir, "secret"), path.join(memory, "out"));
  const ctx: PermissionContext = { mode: "default", rules: { allow: [], ask: [], deny: [] }, cwd: path.join(dir, "work"), home: path.join(dir, "home"), additionalDirectories: [], autoMemoryDir: memory };
  const write = (file: string, c = ctx) => decide({ name: "Write", input: { file_path: file, content: "x" } }, c).behavior;
  assert.equal(write(path.join(memory, "MEMORY.md")), "allow");
  assert.equal(decide({ name: "Edit", input: { file_path: path.join(memory, "a", "note.md"), old_string: "a", new_string: "b" } }, ctx).behavior, "allow");
  assert.equal(decide({ name: "Read", input: { file_path: path.join(memory, "note.md") } }, ctx).behavior, "allow");
  assert.equal(write(path.join(memory, "..", "settings.json")), "ask", "beside it is not in it");
  assert.equal(write(path.join(memory, "out", "key")), "ask", "a link that leads out of it");
  assert.equal(write(path.join(memory, "x.md"), { ...ctx, rules: { allow: [], ask: [], deny: [rule(`Write(/${memory}/**)`, dir)] } }), "deny");
  assert.equal(write(path.join(memory, "x.md"), { ...ctx, autoMemoryDir: undefined }), "ask", "auto memory off: asked as anywhere else");
});
