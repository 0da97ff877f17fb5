// Permission modes in a chat on a shared server: Shift+Tab cycles the modes a session's settings can
// carry (plan mode is a chat of its own's), and /mode plan says why not and what to use instead.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseArgs } from "../args.ts";
import { chatInTerminal, chatServerForFile, leaveChat } from "../test-support.ts";

const server = chatServerForFile("harness-chat-modes-");

function terminalChat(t: { after(fn: () => unknown): void }, sessionId: string, flags = "") {
  const env = { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "modes", HARNESS_BUNDLE: "0" };
  return chatInTerminal(t, `--session ${sessionId} ${flags}`, { env, columns: 80 });
}

test("Shift+Tab on a shared server cycles default and accept edits, without plan mode, and the session takes each", async (t) => {
  const chat = terminalChat(t, "shift-tab-shared");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("\x1b[Z");
  await chat.bottom(/⏵⏵ accept edits on \(shift\+tab to cycle\)/);
  await chat.shows(/permission mode acceptEdits from the next model call on/);
  chat.type("\x1b[Z");
  await chat.shows(/permission mode default from the next model call on/);
  await chat.gone(/shift\+tab to cycle/);
  chat.type("/mode plan\r");
  await chat.sees(/✗ \/mode plan: a chat on a shared server has no plan mode .*harness chat --local --permission-mode plan/);
  server.fake.push({ text: "Fine." });
  const asked = server.fake.requests.length;
  chat.type("hi\r");
  await chat.shows(/Fine\./);
  assert.doesNotMatch(JSON.stringify(server.fake.requests[asked].body), /Plan mode is on/);
  await leaveChat(chat);
});

test("--permission-mode plan starts a chat of its own in plan mode, and is refused on a shared server saying what to use", () => {
  const shared = parseArgs(["chat", "--permission-mode", "plan"]);
  assert.match(shared.kind === "usage-error" ? shared.message : "", /^--permission-mode plan: a chat on a shared server has no plan mode .*harness chat --local --permission-mode plan/);
  const local = parseArgs(["chat", "--local", "--permission-mode", "plan"]);
  assert.deepEqual(local.kind === "chat" && [local.planMode, local.config], [true, undefined]);
});
