// `!` bash mode of `harness chat`, in a real terminal against a local chat and the fake Anthropic
// server: a line starting with "!" runs in the session's project without the model, its output is
// shown, and the model sees the command and its output with the next prompt. The command goes
// through the rules the Bash tool goes through, and Ctrl+C stops it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic } from "@harness/test-utils";
import { bin } from "../test-support.ts";
import { inTerminal } from "../test-screen.ts";

let fake: FakeAnthropic;
let home: string;
let project: string;

before(async () => {
  fake = await startFakeAnthropic();
  home = mkdtempSync(join(tmpdir(), "harness-bang-home-"));
  project = mkdtempSync(join(tmpdir(), "harness-bang-project-"));
  writeFileSync(join(project, "notes.txt"), "the build runs on Fridays\n");
  mkdirSync(join(project, ".claude"));
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(echo:*)", "Bash(cat:*)", "Bash(sleep:*)", "Bash(seq:*)"], deny: ["Bash(rm:*)"] } }));
});
after(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

function localChat(t: { after(fn: () => unknown): void }) {
  const env = { ...process.env, NO_COLOR: "1", TERM: "xterm", HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  return inTerminal(t, `exec bash ${JSON.stringify(bin)} chat --local`, { cwd: project, env, columns: 80 });
}

/** The text of the last user message the model was sent, its blocks joined. */
function lastUserText(body: { messages: { role: string; content: unknown }[] }): string {
  const content = body.messages.at(-1)!.content;
  return typeof content === "string" ? content : (content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("\n");
}

test("a ! line runs in the project without the model, shows its output, and the model sees both with the next prompt", async (t) => {
  const chat = localChat(t);
  await chat.sees(/Ctrl\+D leaves/);
  const asked = fake.requests.length;
  chat.type("!echo printed-by-bash && cat notes.txt && seq 1 12\r");
  await chat.shows(/the build runs on Fridays/);
  // The output is the user's own: shown whole, not an excerpt as a tool call of the model's.
  await chat.shows(/⎿\s+printed-by-bash\n\s+the build runs on Fridays\n(\s+\d+\n){11}\s+12$/m);
  assert.equal(fake.requests.length, asked, "the ! line did not go to the model");
  fake.push({ text: "It said Fridays." });
  chat.type("what did it print?\r");
  await chat.sees(/It said Fridays\./);
  const text = lastUserText(fake.requests.at(-1)!.body);
  assert.match(text, /<local-command-caveat>/);
  assert.match(text, /<bash-input>echo printed-by-bash && cat notes.txt && seq 1 12<\/bash-input>/);
  assert.match(text, /<bash-stdout>printed-by-bash\nthe build runs on Fridays\n1\n[\d\n]*12\n?<\/bash-stdout><bash-stderr><\/bash-stderr>/);
  assert.match(text, /what did it print\?$/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("a ! command keeps to the project's permission rules, and Ctrl+C stops one that runs on", async (t) => {
  const chat = localChat(t);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("!rm notes.txt\r");
  await chat.shows(/denied|refused|not allowed/i);
  assert.ok(existsSync(join(project, "notes.txt")), "the deny rule kept the file");
  chat.type("!sleep 30 && echo woke\r");
  await chat.shows(/Bash.*sleep 30/);
  const started = Date.now();
  chat.type("\x03");
  await chat.shows(/\(cancelled\)/);
  assert.ok(Date.now() - started < 10_000, "the command stopped at once");
  assert.doesNotMatch(chat.rows().join("\n"), /^\s*(⎿\s+)?woke$/m, "the command after the sleep never ran");
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});
