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
