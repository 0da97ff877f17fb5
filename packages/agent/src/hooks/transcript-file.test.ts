// The hooks' transcript file: private, brought up to date by appending, removed with its session.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { test } from "node:test";
import type { ModelMessage } from "@harness/llm";
import { transcriptFile } from "./transcript-file.ts";

test("the transcript file is private, grows by appending, starts over when the conversation was replaced, and goes with its session", () => {
  const file = transcriptFile("s/1");
  const messages: ModelMessage[] = [{ role: "user", content: "hi" }];
  const path = file.sync(messages);
  assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  messages.push({ role: "assistant", content: [{ type: "text", text: "hello" }] });
  assert.equal(file.sync(messages), path);
  const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines, [
    { type: "user", session_id: "s/1", message: messages[0] },
    { type: "assistant", session_id: "s/1", message: messages[1] },
  ]);
  // Compacted: another conversation, written anew.
  file.sync([{ role: "user", content: "summary" }]);
  assert.equal(readFileSync(path, "utf8").trim().split("\n").length, 1);
  file.remove();
  assert.equal(existsSync(path), false);
});

test("transcript directories of processes that are gone are swept away by the next one", async () => {
  const { spawnSync } = await import("node:child_process");
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  // A pid that no process has now: one that just exited.
  const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
  const left = join(tmpdir(), `harness-transcripts-${dead}-left`);
  mkdirSync(left, { recursive: true });
  writeFileSync(join(left, "s.jsonl"), "{}\n");
  // A process of this test file writes its first transcript only now (a fresh import).
  const { transcriptFile: fresh } = await import(`./transcript-file.ts?sweep=${Date.now()}`);
  const path = fresh("s2").sync([{ role: "user", content: "x" }]);
  assert.ok(path);
  assert.equal(existsSync(left), false);
  fresh("s2").remove();
});
