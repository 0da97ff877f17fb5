// `harness chat` in a real terminal while the model thinks: the working row says "Thinking…"; once
// the reply comes, the thinking is one dim line ("✻ Thought for Ns") above it, or, with --verbose,
// the thinking whole, as Claude Code's transcript view shows it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatInTerminal, chatServerForFile, heldReply, pause } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-thinking-");

const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "thinking", TERM: "xterm", HARNESS_BUNDLE: "0" });

/** A reply that thinks, then holds its text until released. */
function thinkingReply(text: string) {
  const held = heldReply(text);
  return { reply: { thinking: ["The user wants ", "a greeting."], ...held.reply }, release: held.release };
}

test("while the model thinks the row says Thinking…; the thinking then shows as one dim line above the reply", async (t) => {
  const held = thinkingReply("Hello there.");
  server.fake.push(held.reply);
  t.after(() => held.release());
  const chat = chatInTerminal(t, "--session thinking-row", { env: env(), columns: 70 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("say hello\r");
  await chat.shows(/^[·✢✳✶✻✽] Thinking… \(\d+s/m);
  await pause(1100);
  held.release();
  await chat.shows(/^Hello there\.$/m);
  const rows = chat.rows();
  const at = rows.indexOf("Hello there.");
  assert.match(rows[at - 1], /^✻ Thought for [1-9]\d*s$/, rows.join("\n"));
  assert.doesNotMatch(rows.join("\n"), /The user wants/, "the thinking itself stays folded");
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("with --verbose the thinking is shown whole above the reply", async (t) => {
  const held = thinkingReply("Hi.");
  server.fake.push(held.reply);
  t.after(() => held.release());
  const chat = chatInTerminal(t, "--session thinking-verbose --verbose", { env: env(), columns: 70 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("say hi\r");
  await chat.shows(/Thinking…/);
  held.release();
  await chat.shows(/^Hi\.$/m);
  const rows = chat.rows();
  const at = rows.indexOf("Hi.");
  assert.deepEqual(rows.slice(at - 2, at), ["✻ Thinking…", "  The user wants a greeting."], rows.join("\n"));
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});
