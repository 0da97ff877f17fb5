// Keys are named as Claude Code names them (Ctrl+C, Shift+Tab) in every help and message.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CHAT_HELP, CHAT_KEYS } from "./chat/line.ts";
import { harness } from "./test-support.ts";

const DASHED = /\b(Ctrl|Alt|Shift|Meta|Cmd)-[A-Za-z0-9_]/;

test("the helps of harness, harness -p, harness chat and the chat's /help and ? spell keys Ctrl+C, never with a dash", async () => {
  for (const args of [["--help"], ["-p", "--help"], ["chat", "--help"]]) {
    const { code, stdout } = await harness(args, {}).result;
    assert.equal(code, 0);
    assert.doesNotMatch(stdout, DASHED, args.join(" "));
    if (args[0] !== "--help") assert.match(stdout, /Ctrl\+C/, args.join(" "));
  }
  for (const text of [CHAT_HELP, CHAT_KEYS]) {
    assert.doesNotMatch(text, DASHED);
    assert.match(text, /Ctrl\+C/);
  }
  assert.match(CHAT_KEYS, /^ {2}Ctrl\+D {18}leave/m);
});
