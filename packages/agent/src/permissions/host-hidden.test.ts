import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { workspaceTmpDir } from "../sandbox/tmp-dir.ts";
import { decide } from "./decide.ts";
import { hostHiddenCallDenial } from "./host-hidden-call.ts";
import { toPermissionRules } from "./parse-rule.ts";
import type { PermissionContext, PermissionMode } from "./types.ts";

/** A server's data directory with two sessions' workspaces; the run is mallory's. */
function place(t: { after(fn: () => void): void }) {
  const data = mkdtempSync(path.join(tmpdir(), "host-hidden-"));
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const mine = path.join(data, "workspaces", "mallory", "mine");
  const theirs = path.join(data, "workspaces", "alice", "s1");
  mkdirSync(mine, { recursive: true });
  mkdirSync(theirs, { recursive: true });
  writeFileSync(path.join(theirs, "secret.txt"), "alice's");
  const context = (mode: PermissionMode, allow: string[] = []): PermissionContext => ({
    mode,
    rules: { allow: toPermissionRules(allow, { root: mine }).rules, ask: [], deny: [] },
    cwd: mine,
    home: "/home/u",
    // Settings may name any directory: the hidden places stay hidden all the same.
    additionalDirectories: [theirs],
    hostHidden: [data],
  });
  return { data, mine, theirs, context };
}

test("the file tools never reach the host's hidden data, whatever the mode, rules or directories", (t) => {
  const { data, theirs, context } = place(t);
  const secret = path.join(theirs, "secret.txt");
  for (const mode of ["bypassPermissions", "acceptEdits", "default"] as const) {
    const ctx = context(mode, ["Read", "Edit", "Glob", "Grep"]);
    const calls = [
      { name: "Read", input: { file_path: secret } },
      { name: "Read", input: { file_path: "../../alice/s1/secret.txt" } },
      { name: "Write", input: { file_path: path.join(theirs, "planted.txt"), content: "x" } },
      { name: "Edit", input: { file_path: secret, old_string: "a", new_string: "b" } },
      { name: "Read", input: { file_path: path.join(data, "harness.db") } },
      { name: "Grep", input: { pattern: "secret", path: path.dirname(data) } },
      { name: "Glob", input: { pattern: "**/*.txt", path: path.dirname(data) } },
      { name: "Glob", input: { pattern: `${data}/**` } },
      { name: "Glob", input: { pattern: "{../../alice/s1,x}/*" } },
      { name: "LS", input: { path: path.join(data, "workspaces") } },
    ];
    for (const call of calls) {
      const decision = decide(call, ctx);
      assert.equal(decision.behavior, "deny", `${mode}: ${JSON.stringify(call)}: ${decision.reason}`);
      assert.match(decision.reason, /server's data directory/);
    }
  }
});

test("the session's own workspace and temporary directory stay open, and a link out of them does not", (t) => {
  const { mine, theirs, context } = place(t);
  symlinkSync(theirs, path.join(mine, "peek"));
  const ctx = context("bypassPermissions");
  assert.equal(decide({ name: "Read", input: { file_path: path.join(mine, "notes.md") } }, ctx).behavior, "allow");
  assert.equal(decide({ name: "Grep", input: { pattern: "x" } }, ctx).behavior, "allow");
  assert.equal(decide({ name: "Write", input: { file_path: path.join(workspaceTmpDir(mine), "scratch"), content: "" } }, ctx).behavior, "allow");
  const through = decide({ name: "Read", input: { file_path: "peek/secret.txt" } }, ctx);
  assert.equal(through.behavior, "deny");
  assert.match(through.reason, /symbolic link leads it to/);
  // Without a host that hides anything, nothing changes.
  assert.equal(decide({ name: "Read", input: { file_path: path.join(theirs, "secret.txt") } }, { ...ctx, hostHidden: undefined }).behavior, "allow");
});

test("another agent's file tool calls get the same denials, and its other calls none", (t) => {
  const { data, mine, theirs } = place(t);
  const places = { cwd: mine, home: "/home/u", hidden: [data] };
  assert.match(hostHiddenCallDenial("Read", { file_path: path.join(theirs, "secret.txt") }, places) ?? "", /server's data directory/);
  assert.equal(hostHiddenCallDenial("Read", { file_path: path.join(mine, "notes.md") }, places), undefined);
  assert.equal(hostHiddenCallDenial("Bash", { command: `cat ${theirs}/secret.txt` }, places), undefined);
  assert.equal(hostHiddenCallDenial("Read", "not an object", places), undefined);
});

test("under the server with the sandbox on, a session's file tools may not change its own settings or hook scripts", (t) => {
  const { mine, context } = place(t);
  const sandbox = {} as NonNullable<PermissionContext["sandbox"]>;
  const writes = [
    { name: "Write", input: { file_path: path.join(mine, ".claude", "settings.json"), content: '{"hooks":{}}' } },
    { name: "Write", input: { file_path: ".claude/settings.local.json", content: '{"sandbox":{"enabled":false}}' } },
    { name: "Edit", input: { file_path: ".claude/hooks/format.sh", old_string: "a", new_string: "b" } },
  ];
  for (const call of writes) {
    const decision = decide(call, { ...context("bypassPermissions", ["Edit"]), sandbox });
    assert.equal(decision.behavior, "deny", JSON.stringify(call));
    assert.match(decision.reason, /may not change its own settings or hook scripts/);
  }
  // Reading them, and writing them without the sandbox (Bash could anyway), stay as they were.
  assert.equal(decide({ name: "Read", input: { file_path: ".claude/settings.json" } }, { ...context("bypassPermissions"), sandbox }).behavior, "allow");
  assert.equal(decide(writes[0]!, context("bypassPermissions")).behavior, "allow");
  assert.equal(decide({ name: "Write", input: { file_path: "src/settings.json", content: "{}" } }, { ...context("bypassPermissions"), sandbox }).behavior, "allow");
});

test("Claude Code's file tools under the server may not change the workspace's settings or hook scripts either", (t) => {
  const { mine, data } = place(t);
  const places = { cwd: mine, home: "/home/u", hidden: [data] };
  assert.match(hostHiddenCallDenial("Write", { file_path: path.join(mine, ".claude", "settings.json"), content: "{}" }, places) ?? "", /may not change its own settings or hook scripts/);
  assert.match(hostHiddenCallDenial("Edit", { file_path: path.join(mine, ".claude", "hooks", "a.sh"), old_string: "a", new_string: "b" }, places) ?? "", /hook scripts/);
  assert.equal(hostHiddenCallDenial("Read", { file_path: path.join(mine, ".claude", "settings.json") }, places), undefined);
  assert.equal(hostHiddenCallDenial("Write", { file_path: path.join(mine, "notes.md"), content: "x" }, places), undefined);
});
