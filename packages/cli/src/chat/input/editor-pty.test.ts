// Keys of a chat at a real terminal for a prompt of several lines, as Claude Code has them: Ctrl+J
// starts a new line of the prompt (it does not send it), and Ctrl+G opens the prompt in the user's
// editor ($VISUAL, else $EDITOR), whose text comes back on the line to send or edit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatInTerminal, fakeModelForFile, leaveChat, pause } from "../../test-support.ts";

const model = fakeModelForFile();

/** A chat of its own, 60 columns wide, `env` added to its environment. */
function ownChat(t: { after(fn: () => unknown): void }, project: string, env: Record<string, string> = {}) {
  const chatEnv = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0", NO_COLOR: "1", VISUAL: "", EDITOR: "", ...env };
  return chatInTerminal(t, "--local", { cwd: project, env: chatEnv, columns: 60 });
}

/** The text of the last user message the model was sent. */
async function lastPrompt(before: number): Promise<string> {
  // Generous: a chat's first prompt starts its own server and runner, slow on a machine running many tests.
  const [request] = (await model.fake.waitForRequests(before + 1, 30_000)).slice(before);
  return JSON.stringify(request.body.messages.at(-1));
}

test("Ctrl+J starts a new line of the prompt, which Enter then sends whole", async (t) => {
  const project = model.dir("harness-ctrlj-");
  model.fake.push({ text: "Both lines read." });
  const before = model.fake.requests.length;
  const chat = ownChat(t, project);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("first line\x0a");
  chat.type("second line");
  await chat.shows(/second line/);
  await pause(300);
  assert.equal(model.fake.requests.length, before, "Ctrl+J sent nothing");
  chat.type("\r");
  assert.match(await lastPrompt(before), /first line\\nsecond line/);
  await chat.shows(/Both lines read\./);
  await pause(300);
  assert.equal(model.fake.requests.length, before + 1, "one prompt, not a prompt and a steer");
  await leaveChat(chat);
});

test("Ctrl+G opens the prompt in $VISUAL, and its text comes back on the line to send", async (t) => {
  const project = model.dir("harness-ctrlg-");
  const editor = join(project, "..", `${project.split("/").at(-1)}-editor.sh`);
  // The "editor" rewrites the file it is given: what was typed, then a line of its own.
  writeFileSync(editor, `#!/bin/sh\nprintf '%s, edited\\nand a second line\\n' "$(cat "$1")" > "$1"\n`, { mode: 0o755 });
  model.fake.push({ text: "Edited prompt read." });
  const before = model.fake.requests.length;
  const chat = ownChat(t, project, { VISUAL: editor, EDITOR: "false" });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("a draft\x07");
  await chat.shows(/a draft, edited\nand a second line/);
  assert.equal(model.fake.requests.length, before, "the edited prompt waits for Enter");
  chat.type(" too\r");
  assert.match(await lastPrompt(before), /a draft, edited\\nand a second line too/);
  await chat.shows(/Edited prompt read\./);
  await leaveChat(chat);
});

test("an editor that fails leaves the line as it was, saying so", async (t) => {
  const project = model.dir("harness-ctrlg-fail-");
  model.fake.push({ text: "Kept." });
  const before = model.fake.requests.length;
  const chat = ownChat(t, project, { EDITOR: "false" });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("keep me\x07");
  await chat.shows(/the editor \(false\) exited with status 1/);
  await chat.shows(/keep me/);
  chat.type(" still\r");
  assert.match(await lastPrompt(before), /"keep me still"/);
  await chat.shows(/Kept\./);
  await leaveChat(chat);
});

test("? on an empty line lists the chat's keys, as Claude Code's does; typed after anything, it is text", async (t) => {
  const project = model.dir("harness-question-");
  model.fake.push({ text: "Answered." });
  const before = model.fake.requests.length;
  const chat = ownChat(t, project);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("?");
  await chat.shows(/Ctrl\+G +edit the prompt in \$VISUAL/);
  assert.match(chat.rows().join("\n"), /Shift\+Tab +the next permission mode/);
  chat.type("why? and how?\r");
  assert.match(await lastPrompt(before), /"why\? and how\?"/);
  await chat.shows(/Answered\./);
  await leaveChat(chat);
});

test("Ctrl+S stashes the prompt being typed; it comes back once the next prompt is sent", async (t) => {
  const project = model.dir("harness-stash-");
  model.fake.push({ text: "Quick one answered." }, { text: "Long one answered." });
  const before = model.fake.requests.length;
  const chat = ownChat(t, project);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("a long prompt half written\x13");
  await chat.shows(/prompt stashed/);
  assert.doesNotMatch(chat.rows().at(-1) ?? "", /half written/, "the line is cleared");
  chat.type("a quick question\r");
  assert.match(await lastPrompt(before), /"a quick question"/);
  await chat.shows(/Quick one answered\./);
  await chat.bottom(/^a long prompt half written$/);
  chat.type(", now finished\r");
  assert.match(await lastPrompt(before + 1), /"a long prompt half written, now finished"/);
  await chat.shows(/Long one answered\./);
  await leaveChat(chat);
});

test("Ctrl+G while a run is under way says the editor opens once it ends, and opens none", async (t) => {
  const project = model.dir("harness-ctrlg-busy-");
  let release!: () => void;
  model.fake.push({ text: "Slow answer.", hold: new Promise<void>((resolve) => (release = resolve)) });
  t.after(() => release());
  const chat = ownChat(t, project, { EDITOR: "false" });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("think slowly\r");
  await chat.shows(/esc to interrupt/);
  chat.type("\x07");
  await chat.shows(/a run is under way: Ctrl\+G opens the editor once it ends/);
  assert.doesNotMatch(chat.rows().join("\n"), /exited with status/);
  release();
  await chat.shows(/Slow answer\./);
  await leaveChat(chat);
});
