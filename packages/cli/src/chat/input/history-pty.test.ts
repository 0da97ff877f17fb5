// The prompts typed into `harness chat` in a real terminal come back in later chats in the same
// project: Up recalls them, Ctrl+R searches them. Each chat runs under `script` against a real
// server process and the fake Anthropic server, which records what the model was sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatInTerminal, chatServerForFile, leaveChat, pause, pipedChat, tempDir } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-history-");

const COLUMNS = 70;
let sessions = 0;

/** A new chat session in `cwd`, the user's configuration in `config`, at a terminal of its own. */
async function chatIn(t: { after(fn: () => unknown): void }, cwd: string, config: string) {
  const env = { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "pty", CLAUDE_CONFIG_DIR: config, HARNESS_BUNDLE: "0" };
  const chat = chatInTerminal(t, `--session history-${process.pid}-${++sessions}`, { cwd, env, columns: COLUMNS });
  await chat.sees(/Ctrl\+D leaves/);
  return chat;
}

/** What the model was sent last in the request after the first `before`. */
async function sent(before: number): Promise<string> {
  const [request] = (await server.fake.waitForRequests(before + 1)).slice(before);
  return JSON.stringify(request.body.messages.at(-1));
}

test("a prompt sent in one chat comes back with Up in a new chat in the same directory, not in another", async (t) => {
  const [project, elsewhere, config] = [tempDir(t), tempDir(t), tempDir(t)];
  server.fake.push({ text: "Otters counted" }, { text: "Counted again" }, { text: "Fresh start" });
  let before = server.fake.requests.length;
  const first = await chatIn(t, project, config);
  first.type("count the otters\r");
  await first.sees(/Otters counted/);
  assert.match(await sent(before), /"count the otters"/);
  await leaveChat(first);

  before = server.fake.requests.length;
  const again = await chatIn(t, project, config);
  again.type("\x1b[A");
  await again.bottom(/count the otters/);
  again.type("\r");
  await again.sees(/Counted again/);
  assert.match(await sent(before), /"count the otters"/);
  await leaveChat(again);

  before = server.fake.requests.length;
  const other = await chatIn(t, elsewhere, config);
  other.type("\x1b[Afresh\r");
  await other.sees(/Fresh start/);
  assert.match(await sent(before), /"fresh"/, "Up found nothing in another directory");
  await leaveChat(other);

  const kept = readFileSync(join(config, "history.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(
    kept.map((entry) => [entry.display, entry.project]),
    [["count the otters", project], ["fresh", elsewhere]],
    "the same prompt sent again in a row is kept once",
  );
});

test("a prompt of several lines comes back whole", async (t) => {
  const [project, config] = [tempDir(t), tempDir(t)];
  server.fake.push({ text: "Two lines read" }, { text: "Read again" });
  let before = server.fake.requests.length;
  const first = await chatIn(t, project, config);
  // Typed, not pasted: the second line comes well after the first.
  first.type("line one\\\r");
  await first.sees(/line one\\/);
  await pause(200);
  first.type("line two\r");
  await first.sees(/Two lines read/);
  assert.match(await sent(before), /"line one\\nline two"/);
  await leaveChat(first);

  before = server.fake.requests.length;
  const again = await chatIn(t, project, config);
  again.type("\x1b[A");
  await again.bottom(/line two/);
  again.type("\r");
  await again.sees(/Read again/);
  assert.match(await sent(before), /"line one\\nline two"/);
  await leaveChat(again);
});

test("Ctrl+R finds an older prompt as it is typed, and Enter sends it", async (t) => {
  const [project, config] = [tempDir(t), tempDir(t)];
  server.fake.push({ text: "Deployed" }, { text: "Fish counted" }, { text: "Deployed again" });
  const first = await chatIn(t, project, config);
  first.type("deploy the otters\r");
  await first.sees(/Deployed/);
  first.type("count the fish\r");
  await first.sees(/Fish counted/);
  await leaveChat(first);

  const before = server.fake.requests.length;
  const again = await chatIn(t, project, config);
  again.type("\x12");
  await again.bottom(/\(reverse-i-search\)`':$/);
  again.type("ott");
  await again.bottom(/\(reverse-i-search\)`ott': deploy the otters/);
  again.type("\r");
  await again.sees(/Deployed again/);
  assert.match(await sent(before), /"deploy the otters"/);
  await leaveChat(again);
});

test("a prompt of Claude Code's with pasted text comes back as Claude Code shows it, by Up and by Ctrl+R, and is sent with the text", async (t) => {
  const [project, config] = [tempDir(t), tempDir(t)];
  const entry = {
    display: "why does [Pasted text #1 +1 lines] fail?",
    pastedContents: { "1": { id: 1, type: "text", content: "npm ERR! walrus\nnpm ERR! code 1" } },
    timestamp: Date.now(),
    project,
  };
  writeFileSync(join(config, "history.jsonl"), `${JSON.stringify(entry)}\n`);
  server.fake.push({ text: "Walrus one" }, { text: "Walrus two" });
  let before = server.fake.requests.length;
  const chat = await chatIn(t, project, config);
  chat.type("\x1b[A");
  await chat.bottom(/^why does \[Pasted text #1 \+1 lines\] fail\?$/);
  chat.type("\r");
  await chat.sees(/Walrus one/);
  assert.match(await sent(before), /"why does npm ERR! walrus\\nnpm ERR! code 1 fail\?"/);

  before = server.fake.requests.length;
  chat.type("\x12walrus");
  await chat.shows(/\(failed reverse-i-search\)`walrus'/);
  chat.type("\x7f".repeat(6) + "does [");
  await chat.shows(/\(reverse-i-search\)`does \[': why does \[Pasted text #1 \+1 lines\] fail\?/);
  chat.type("\r");
  await chat.sees(/Walrus two/);
  assert.match(await sent(before), /"why does npm ERR! walrus\\nnpm ERR! code 1 fail\?"/);
  await leaveChat(chat);
});

test("a prompt with a long paste comes back in the next chat as its placeholder, Backspace takes it off whole, and Enter sends the text", async (t) => {
  const [project, config] = [tempDir(t), tempDir(t)];
  const pasted = Array.from({ length: 6000 }, (_, i) => `log line ${i + 1}`).join("\r");
  server.fake.push({ text: "Logs read" }, { text: "Logs again" }, { text: "Without them" });
  let before = server.fake.requests.length;
  const first = await chatIn(t, project, config);
  first.type(`read \x1b[200~${pasted}\x1b[201~ please\r`);
  await first.sees(/Logs read/);
  await leaveChat(first);

  before = server.fake.requests.length;
  const again = await chatIn(t, project, config);
  again.type("\x1b[A");
  await again.bottom(/^read \[Pasted text #1 \+5999 lines\] please$/);
  assert.doesNotMatch(again.screen(), /log line 2\b/, "the text is not drawn");
  again.type("\r");
  await again.sees(/Logs again/);
  const steered = await sent(before);
  assert.ok(steered.includes("read log line 1\\nlog line 2\\n") && steered.includes("log line 6000 please"), "the model gets the text");

  before = server.fake.requests.length;
  again.type(`\x1b[A${"\x1b[D".repeat(" please".length)}\x7f`);
  await again.bottom(/^read  please$/);
  again.type("\r");
  await again.sees(/Without them/);
  assert.match(await sent(before), /"read  please"/);
  await leaveChat(again);
});

test("Ctrl+R again goes to an older match; Ctrl+G leaves the search with the line as it was", async (t) => {
  const [project, config] = [tempDir(t), tempDir(t)];
  server.fake.push({ text: "One" }, { text: "Two" }, { text: "Kept" });
  const first = await chatIn(t, project, config);
  first.type("fish one\r");
  await first.sees(/One/);
  first.type("fish two\r");
  await first.sees(/Two/);
  await leaveChat(first);

  const before = server.fake.requests.length;
  const again = await chatIn(t, project, config);
  again.type("draft");
  await again.bottom(/^draft$/);
  again.type("\x12fish");
  await again.bottom(/`fish': fish two/);
  again.type("\x12");
  await again.bottom(/`fish': fish one/);
  again.type("\x07");
  await again.bottom(/^draft$/);
  again.type(" kept\r");
  await again.sees(/Kept/);
  assert.match(await sent(before), /"draft kept"/);
  await leaveChat(again);
});

test("Esc puts the match on the line to edit, and does not cancel the run under way", async (t) => {
  const [project, config] = [tempDir(t), tempDir(t)];
  let release!: () => void;
  server.fake.push({ text: "Looked" }, { text: "Still thinking", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Steered" });
  t.after(() => release());
  const first = await chatIn(t, project, config);
  first.type("look at the fish\r");
  await first.sees(/Looked/);
  await leaveChat(first);

  const again = await chatIn(t, project, config);
  again.type("think\r");
  await again.sees(/Still thinking/);
  again.type("\x12fish");
  await again.bottom(/`fish': look at the fish/);
  again.type("\x1b");
  await again.bottom(/^look at the fish$/);
  // Esc alone is told from the start of a longer key after a moment.
  await pause(700);
  assert.doesNotMatch(again.screen(), /cancelling the run/);
  again.type(" closely\r");
  release();
  await again.sees(/Steered/);
  const bodies = server.fake.requests.map((request) => JSON.stringify(request.body.messages));
  assert.ok(bodies.some((body) => body.includes("look at the fish closely")), "the edited match steered the run");
  await leaveChat(again);
});

test("a history file that is not one is said once and left alone; the chat goes on", async (t) => {
  const [project, config] = [tempDir(t), tempDir(t)];
  const file = join(config, "history.jsonl");
  writeFileSync(file, "not a history\n");
  server.fake.push({ text: "Fine" });
  const chat = await chatIn(t, project, config);
  await chat.sees(/history\.jsonl is not a prompt history \(not JSON lines\); the chat neither reads nor writes it/);
  chat.type("go on\r");
  await chat.sees(/Fine/);
  await leaveChat(chat);
  assert.equal(readFileSync(file, "utf8"), "not a history\n");
});

test("a piped chat keeps no history", async (t) => {
  const config = tempDir(t);
  server.fake.push({ text: "Piped" });
  const { code, stderr } = await pipedChat(server.url, ["--session", `history-piped-${process.pid}`], "from a pipe\n", { CLAUDE_CONFIG_DIR: config });
  assert.equal(code, 0, stderr);
  assert.equal(existsSync(join(config, "history.jsonl")), false);
});
