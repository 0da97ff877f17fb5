// What a Claude Code user types first is in the helps, under Claude Code's names.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CHAT_HELP } from "./chat/line.ts";
import { harness } from "./test-support.ts";

test("the chat's /help names /exit (Claude Code's), /init and /clear; harness chat --help names /exit and /resume", async () => {
  assert.match(CHAT_HELP, /^ {2}\/exit, \/quit +leave/m);
  assert.match(CHAT_HELP, /\/init\b/);
  assert.match(CHAT_HELP, /\/clear\b/);
  const { code, stdout } = await harness(["chat", "--help"], {}).result;
  assert.equal(code, 0);
  const inChat = /In the chat: ([^]*?)\.\n/.exec(stdout)?.[1] ?? "";
  for (const command of ["/exit", "/resume", "/help"]) assert.ok(inChat.includes(command), `${command} in: ${inChat}`);
});
