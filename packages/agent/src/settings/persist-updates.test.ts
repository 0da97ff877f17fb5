// Permission updates kept in a settings file are written as `harness mcp` writes its files: a
// settings file that is a symbolic link (a dotfiles repository's) stays one, its target updated.
import assert from "node:assert/strict";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { persistPermissionUpdates } from "./persist-updates.ts";

test("a symlinked settings.local.json stays a link, its target gets the rule and keeps its mode", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-persist-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const at = { cwd: join(dir, "proj"), home: join(dir, "home"), projectRoot: join(dir, "proj") };
  const target = join(dir, "dotfiles", "settings.local.json");
  mkdirSync(join(dir, "dotfiles"));
  writeFileSync(target, JSON.stringify({ model: "opus" }), { mode: 0o600 });
  mkdirSync(join(at.projectRoot, ".claude"), { recursive: true });
  const link = join(at.projectRoot, ".claude", "settings.local.json");
  symlinkSync(target, link);

  const problems = persistPermissionUpdates([{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "make" }], behavior: "allow", destination: "localSettings" }], at);

  assert.deepEqual(problems, []);
  assert.ok(lstatSync(link).isSymbolicLink(), "the link is still a link");
  assert.equal(readlinkSync(link), target);
  assert.deepEqual(JSON.parse(readFileSync(target, "utf8")), { model: "opus", permissions: { allow: ["Bash(make)"] } });
  assert.equal(statSync(target).mode & 0o777, 0o600);
});
