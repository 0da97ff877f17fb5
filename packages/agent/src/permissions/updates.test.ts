// Permission updates of an approval: applied to the session's rules and mode, and written to the
// settings files they name.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { persistPermissionUpdates } from "../settings/persist-updates.ts";
import { decide } from "./decide.ts";
import type { PermissionContext } from "./types.ts";
import { applyPermissionUpdates, parsePermissionUpdates, type PermissionUpdate } from "./updates.ts";

const where = { cwd: "/proj/sub", home: "/home/u", projectRoot: "/proj" };
const context = (): PermissionContext => ({
  mode: "default",
  rules: {
    allow: [{ tool: "Bash", specifier: "make", text: "Bash(make)", root: "/proj", source: "/proj/.claude/settings.local.json" }],
    ask: [],
    deny: [{ tool: "Bash", specifier: "rm:*", text: "Bash(rm:*)", root: "/proj", source: "/proj/.claude/settings.json" }],
  },
  cwd: "/proj/sub",
  home: "/home/u",
  additionalDirectories: ["/data"],
});
const bash = (command: string) => ({ name: "Bash", input: { command } });

test("updates add, replace and remove the rules of their destination, set the mode and change the directories", () => {
  const updates: PermissionUpdate[] = [
    { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }], behavior: "allow", destination: "session" },
    { type: "replaceRules", rules: [{ toolName: "Bash", ruleContent: "git push" }], behavior: "allow", destination: "localSettings" },
    { type: "removeRules", rules: [{ toolName: "Bash", ruleContent: "rm:*" }], behavior: "deny", destination: "localSettings" },
    { type: "setMode", mode: "acceptEdits", destination: "session" },
    { type: "addDirectories", directories: ["../lib"], destination: "session" },
    { type: "removeDirectories", directories: ["/data"], destination: "session" },
  ];
  const { permissions, errors } = applyPermissionUpdates(context(), updates, where);
  assert.deepEqual(errors, []);
  assert.deepEqual(permissions.rules.allow.map((rule) => rule.text), ["Bash(npm test)", "Bash(git push)"], "the local file's Bash(make) was replaced");
  assert.deepEqual(permissions.rules.deny.map((rule) => rule.text), ["Bash(rm:*)"], "a rule of another file is not removed");
  assert.equal(permissions.mode, "acceptEdits");
  assert.deepEqual(permissions.additionalDirectories, ["/proj/lib"]);
  assert.equal(decide(bash("npm test"), permissions).behavior, "allow");
  assert.equal(decide(bash("make"), permissions).behavior, "ask");
  assert.deepEqual(context().rules.allow.map((rule) => rule.text), ["Bash(make)"], "the context given is left as it was");
});

test("updatedPermissions absent or null are no updates, whoever gives them", () => {
  assert.deepEqual(parsePermissionUpdates(undefined), []);
  assert.deepEqual(parsePermissionUpdates(null), []);
});

test("updates that cannot be read are refused, naming the entry", () => {
  assert.deepEqual(parsePermissionUpdates([{ type: "addRules", rules: [], behavior: "allow", destination: "session" }]), [{ type: "addRules", rules: [], behavior: "allow", destination: "session" }]);
  const bad = parsePermissionUpdates([{ type: "setMode", mode: "sideways", destination: "session" }]);
  assert.ok("error" in bad);
  assert.match(bad.error, /updatedPermissions\[0\]\.mode/);
  const unknown = parsePermissionUpdates([{ type: "grantAll", destination: "session" }]);
  assert.ok("error" in unknown);
  assert.match(unknown.error, /updatedPermissions\[0\]/);
});

test("updates for settings files are written there, keeping the rest of the file; session ones are written nowhere", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-updates-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const at = { cwd: join(dir, "proj"), home: join(dir, "home"), projectRoot: join(dir, "proj") };
  mkdirSync(join(at.projectRoot, ".claude"), { recursive: true });
  writeFileSync(join(at.projectRoot, ".claude/settings.json"), JSON.stringify({ model: "opus", permissions: { allow: ["Read"], deny: ["Bash(rm:*)"] } }));
  writeFileSync(join(at.projectRoot, ".claude/settings.local.json"), "{ not json");
  const problems = persistPermissionUpdates(
    [
      { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }, { toolName: "Read" }], behavior: "allow", destination: "projectSettings" },
      { type: "removeRules", rules: [{ toolName: "Bash", ruleContent: "rm:*" }], behavior: "deny", destination: "projectSettings" },
      { type: "setMode", mode: "acceptEdits", destination: "userSettings" },
      { type: "addDirectories", directories: ["../data"], destination: "userSettings" },
      { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "ls" }], behavior: "allow", destination: "localSettings" },
      { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "pwd" }], behavior: "allow", destination: "session" },
    ],
    at,
  );
  assert.deepEqual(JSON.parse(readFileSync(join(at.projectRoot, ".claude/settings.json"), "utf8")), { model: "opus", permissions: { allow: ["Read", "Bash(npm test)"], deny: [] } });
  assert.deepEqual(JSON.parse(readFileSync(join(at.home, ".claude/settings.json"), "utf8")), { permissions: { defaultMode: "acceptEdits", additionalDirectories: [join(dir, "data")] } });
  assert.equal(readFileSync(join(at.projectRoot, ".claude/settings.local.json"), "utf8"), "{ not json", "a file that is not JSON is left alone");
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /settings\.local\.json.*not valid JSON/);
});
