// Where a path really leads: symbolic links in the project that point out of it, brace patterns
// that name other directories, and files inside the project that decide which commands run.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { decide } from "./decide.ts";
import { toPermissionRules } from "./parse-rule.ts";
import type { PermissionContext, PermissionMode, ToolCall } from "./types.ts";

function layout(t: { after(fn: () => void): void }) {
  const root = mkdtempSync(path.join(tmpdir(), "harness-links-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const project = path.join(root, "project");
  const outside = path.join(root, "outside");
  mkdirSync(project);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), "s");
  symlinkSync("../outside", path.join(project, "vendor"));
  mkdirSync(path.join(project, "src"));
  return { root, project, outside };
}

function ctx(cwd: string, mode: PermissionMode, deny: string[] = []): PermissionContext {
  return { mode, rules: { allow: [], ask: [], deny: toPermissionRules(deny, { root: cwd }).rules }, cwd, home: "/nonexistent-home", additionalDirectories: [] };
}

const call = (name: string, input: Record<string, unknown>): ToolCall => ({ name, input });

test("a link inside the project that leads out of it needs approval to read or write through", (t) => {
  const { project, outside } = layout(t);
  const read = decide(call("Read", { file_path: "vendor/secret.txt" }), ctx(project, "default"));
  assert.equal(read.behavior, "ask");
  assert.match(read.reason, /a symbolic link leads it to .*outside\/secret\.txt, outside the working directories/);
  const bash = decide(call("Bash", { command: "cat vendor/secret.txt" }), ctx(project, "default"));
  assert.equal(bash.behavior, "ask");
  const write = decide(call("Write", { file_path: "vendor/planted.sh", content: "x" }), ctx(project, "acceptEdits"));
  assert.equal(write.behavior, "ask");
  assert.match(write.reason, /outside\/planted\.sh, outside the working directories/);
  // Inside, without links: as before.
  assert.equal(decide(call("Read", { file_path: "src/a.ts" }), ctx(project, "default")).behavior, "allow");
  assert.equal(decide(call("Write", { file_path: "src/new/b.ts", content: "x" }), ctx(project, "acceptEdits")).behavior, "allow");
  // A deny rule on where the link leads holds through the link.
  const denied = decide(call("Read", { file_path: "vendor/secret.txt" }), ctx(project, "bypassPermissions", [`Read(/${outside}/**)`]));
  assert.equal(denied.behavior, "deny");
});

test("Glob braces that may name other directories need approval", (t) => {
  const { project } = layout(t);
  for (const pattern of ["{..,x}/*/*", "{/etc,x}/pass*", "src/{a,..}/*"]) {
    const decision = decide(call("Glob", { pattern }), ctx(project, "default"));
    assert.equal(decision.behavior, "ask", pattern);
    assert.match(decision.reason, /braces in the pattern .* may lead out of the directory it searches/, pattern);
  }
  assert.equal(decide(call("Glob", { pattern: "{src,test}/**/*.ts" }), ctx(project, "default")).behavior, "allow");
});

test("in acceptEdits mode, files that decide which commands run still need approval", (t) => {
  const { project } = layout(t);
  const files = [".git/config", ".git/hooks/pre-commit", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".git"];
  // Scripts the settings' hooks run, git's hooks through husky, editors' tasks, shell profiles.
  files.push(".claude/hooks/check.sh", ".husky/pre-commit", ".vscode/tasks.json", ".idea/workspace.xml", "sub/.bashrc", ".gitmodules");
  for (const file of files) {
    const decision = decide(call("Write", { file_path: file, content: "x" }), ctx(project, "acceptEdits"));
    assert.equal(decision.behavior, "ask", file);
    assert.match(decision.reason, /needs approval even in acceptEdits mode: the file decides which commands run/, file);
  }
  assert.equal(decide(call("Write", { file_path: ".claude/agents/a.md", content: "x" }), ctx(project, "acceptEdits")).behavior, "allow");
  for (const file of [".claude/commands/c.md", ".claude/skills/s/SKILL.md", "src/.claude.md", "src/hooks/x.sh"]) {
    assert.equal(decide(call("Write", { file_path: file, content: "x" }), ctx(project, "acceptEdits")).behavior, "allow", file);
  }
  assert.equal(decide(call("Write", { file_path: ".gitignore", content: "x" }), ctx(project, "acceptEdits")).behavior, "allow");
  assert.equal(decide(call("Write", { file_path: ".git/config", content: "x" }), ctx(project, "bypassPermissions")).behavior, "allow");
});

test("a dangling link leads where a write through it creates the file", (t) => {
  const { project, outside } = layout(t);
  symlinkSync(path.join(outside, "new", "authorized_keys"), path.join(project, "keys"));
  symlinkSync("keys", path.join(project, "keys-again"));
  for (const file of ["keys", "keys-again"]) {
    const write = decide(call("Write", { file_path: file, content: "x" }), ctx(project, "acceptEdits"));
    assert.equal(write.behavior, "ask", file);
    assert.match(write.reason, /a symbolic link leads it to .*outside\/new\/authorized_keys, outside the working directories/, file);
  }
  const bash = decide(call("Bash", { command: "echo x > keys" }), ctx(project, "acceptEdits"));
  assert.equal(bash.behavior, "ask");
  const denied = decide(call("Write", { file_path: "keys", content: "x" }), ctx(project, "bypassPermissions", [`Edit(/${outside}/**)`]));
  assert.equal(denied.behavior, "deny");
  // Links that lead in a loop stay where they are.
  symlinkSync("loop-b", path.join(project, "loop-a"));
  symlinkSync("loop-a", path.join(project, "loop-b"));
  assert.equal(decide(call("Write", { file_path: "loop-a", content: "x" }), ctx(project, "acceptEdits")).behavior, "allow");
});
