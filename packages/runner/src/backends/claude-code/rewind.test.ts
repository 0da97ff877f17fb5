// Rewinding the workspace with Claude Code's file checkpoints, filed per session user message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeReply } from "@harness/test-utils";
import type { Backend } from "../../backend.ts";
import { claudeCodeBackend } from "./claude-code.ts";
import { readStore } from "./store.ts";
import { drivenContext, fakeForClaudeCode, NO_CLAUDE_CODE, runnerEnvFor, tempDirs } from "./test-support.ts";

const skip = NO_CLAUDE_CODE;
const timeout = 90_000;

type Dirs = { workspace: string; stateDir: string };

async function runOk(backend: Backend, dirs: Dirs, prompt: string, userMessageId: string, resumeSessionId?: string): Promise<string> {
  const outcome = await backend.run({ prompt, userMessageId, resumeSessionId, permissionMode: "acceptEdits" }, drivenContext(dirs).ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return outcome.sessionId!;
}

const write = (file_path: string, content: string): FakeReply => ({ toolUses: [{ name: "Write", input: { file_path, content } }] });

test("rewind restores edited files and deletes created ones, back to before the message; a dry run only reports", { skip, timeout }, async (t) => {
  const dirs = tempDirs(t);
  const at = (name: string) => join(dirs.workspace, name);
  writeFileSync(at("kept.txt"), "original\n");
  const fake = await fakeForClaudeCode(t, {
    replies: [
      // m1: reads and rewrites kept.txt, creates new.txt
      { toolUses: [{ name: "Read", input: { file_path: at("kept.txt") } }] },
      write(at("kept.txt"), "changed\nby m1\n"),
      write(at("new.txt"), "made by m1\n"),
      { text: "m1 done" },
      // m2: creates later.txt
      write(at("later.txt"), "made by m2\n"),
      { text: "m2 done" },
    ],
  });
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) });
  const session = await runOk(backend, dirs, "edit things", "m1");
  await runOk(backend, dirs, "one more", "m2", session);
  assert.equal(readFileSync(at("kept.txt"), "utf8"), "changed\nby m1\n");

  const byPath = <F extends { path: string }>(files: F[]) => [...files].sort((a, b) => a.path.localeCompare(b.path));
  const preview = await backend.rewind!({ userMessageId: "m2", dryRun: true, ...dirs });
  assert.deepEqual(preview, { dryRun: true, files: [{ path: "later.txt", action: "delete", linesAdded: 0, linesRemoved: 1 }] });
  assert.ok(existsSync(at("later.txt")), "a dry run changes nothing");

  const wide = await backend.rewind!({ userMessageId: "m1", dryRun: true, ...dirs });
  assert.deepEqual(byPath(wide!.files).map((f) => [f.path, f.action]), [
    ["kept.txt", "restore"],
    ["later.txt", "delete"],
    ["new.txt", "delete"],
  ]);

  const done = await backend.rewind!({ userMessageId: "m1", dryRun: false, ...dirs });
  assert.deepEqual(byPath(done!.files).map((f) => [f.path, f.action]), [
    ["kept.txt", "restore"],
    ["later.txt", "delete"],
    ["new.txt", "delete"],
  ]);
  assert.equal(readFileSync(at("kept.txt"), "utf8"), "original\n");
  assert.equal(existsSync(at("new.txt")), false);
  assert.equal(existsSync(at("later.txt")), false);
  assert.equal(fake.requests.length, 6, "rewinding calls no model");
});

test("rewind of a message nobody filed a checkpoint for is undefined; a run that changed nothing rewinds nothing", { skip, timeout }, async (t) => {
  const dirs = tempDirs(t);
  const fake = await fakeForClaudeCode(t, { replies: [{ text: "just talk" }] });
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) });
  assert.equal(await backend.rewind!({ userMessageId: "never-sent", dryRun: true, ...dirs }), undefined);
  await runOk(backend, dirs, "hello", "talk-only");
  assert.equal((await readStore(dirs.stateDir)).checkpoints.length, 1);
  assert.deepEqual(await backend.rewind!({ userMessageId: "talk-only", dryRun: false, ...dirs }), { dryRun: false, files: [] });
});

test("after a rewind the conversation is cut too: the next resume forks it before the rewound turn", { skip, timeout }, async (t) => {
  const dirs = tempDirs(t);
  const fake = await fakeForClaudeCode(t, {
    replies: [{ text: "heron noted" }, { text: "falcon noted" }, { text: "after the first rewind" }, { text: "after the second rewind" }],
  });
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) });
  const s1 = await runOk(backend, dirs, "remember heron", "m1");
  await runOk(backend, dirs, "remember falcon", "m2", s1);

  await backend.rewind!({ userMessageId: "m2", dryRun: false, ...dirs });
  const s2 = await runOk(backend, dirs, "what do you remember?", "m3", s1);
  const third = JSON.stringify(fake.requests[2].body.messages);
  assert.match(third, /remember heron/);
  assert.match(third, /heron noted/);
  assert.doesNotMatch(third, /falcon/);
  assert.notEqual(s2, s1, "the cut conversation continues as a new Claude Code session");

  // Rewinding the first message leaves nothing of the conversation before it.
  await backend.rewind!({ userMessageId: "m1", dryRun: false, ...dirs });
  await runOk(backend, dirs, "start over", "m4", s2);
  assert.doesNotMatch(JSON.stringify(fake.requests[3].body.messages), /heron|falcon/);
  const cuts = (await readStore(dirs.stateDir)).cuts;
  assert.equal(s2 in cuts, false, "a cut is carried out once");
});
