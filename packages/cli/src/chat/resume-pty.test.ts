// `/resume` in `harness chat --local` at a real terminal (under `script`), on the fake Anthropic
// server: the chat switches to another session of the project without leaving; the status line
// follows it, and the keys (Up recalls what was typed) go on working.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic } from "@harness/test-utils";
import { chatInTerminal, harness, leaveChat } from "../test-support.ts";

let fake: FakeAnthropic;
let dir: string;

before(async () => {
  fake = await startFakeAnthropic();
  dir = mkdtempSync(join(tmpdir(), "harness-resume-pty-"));
});
after(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

test("/resume at a terminal lists the project's sessions and /resume 2 goes on in the second: its conversation, status line and the next prompt", async (t) => {
  const cwd = join(dir, "project");
  const home = join(dir, "home");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const script = join(dir, "statusline.mjs");
  writeFileSync(script, `let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log("in " + JSON.parse(s).session_id));`);
  writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ statusLine: { type: "command", command: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}` } }));
  const env = { HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me", NO_COLOR: "1", HARNESS_BUNDLE: "0" };
  fake.push({ text: "Heron noted." }, { text: "Four." });
  for (const [session, prompt] of [["birds", "remember the word heron"], ["sums", "what is 2+2?"]]) {
    const made = await harness(["chat", "--local", "--session", session, prompt], env, { cwd, stdin: "" }).result;
    assert.equal(made.code, 0, made.stderr);
  }

  const chat = chatInTerminal(t, "--local --session sums", { cwd, env, columns: 100 });
  await chat.shows(/Ctrl\+D leaves/);
  await chat.bottom(/^in sums$/);
  chat.type("/resume\r");
  await chat.shows(/ {2}1 {2}what is 2\+2\? {2}· {2}just now {2}· {2}sums {2}\(this chat\)\n {2}2 {2}remember the word heron {2}· {2}just now {2}· {2}birds/);
  chat.type("/resume 2\r");
  await chat.shows(/session birds of me in \S+\n› remember the word heron\nHeron noted\./);
  await chat.bottom(/^in birds$/);
  // Up recalls the line typed last, as before the switch.
  chat.type("\x1b[A");
  await chat.shows(/^\/resume 2$/m);
  chat.type("\x03");
  fake.push({ text: "The word was heron." });
  chat.type("what word did I ask you to remember?\r");
  await chat.shows(/The word was heron\./);
  const history = fake.requests.at(-1)!.body.messages.map((m: { content: unknown }) => JSON.stringify(m.content)).join("\n");
  assert.match(history, /remember the word heron[\s\S]*Heron noted\.[\s\S]*what word did I ask you to remember\?/);
  assert.doesNotMatch(history, /2\+2/);
  await leaveChat(chat);
});
