// `harness chat --fork-session` spawned as a user runs it, against a real server process and the
// fake Anthropic server: the chat goes on in a copy of the session it names, which stays as it was.
import { test } from "node:test";
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { createHarnessClient, createSessionsApi } from "@harness/client";
import { chatServerForFile, harness, startChatServer } from "../test-support.ts";

const server = chatServerForFile("harness-chat-fork-");

/** `harness chat args…` as `user`, with `input` piped in. */
function chat(args: string[], input: string, user = "forker") {
  return harness(["chat", ...args], { HARNESS_URL: server.url, HARNESS_USER: user }, { stdin: input }).result;
}

/** What the model was last sent, as one text: the conversation it was given. */
const lastHistory = () => server.fake.requests.at(-1)!.body.messages.map((m: { content: unknown }) => JSON.stringify(m.content)).join("\n");

const summaryOf = async (user: string, sessionId: string) => (await createSessionsApi({ url: server.url, userId: user }).list()).find((s) => s.sessionId === sessionId);

test("--session ID --fork-session chats in a copy of the session; the original keeps its conversation and title", async () => {
  server.fake.push({ text: "It is blue." });
  const first = await chat(["--session", "fork-source", "what colour is the sky?"], "");
  assert.equal(first.code, 0, first.stderr);
  const sourceBefore = await summaryOf("forker", "fork-source");
  assert.ok(sourceBefore);

  server.fake.push({ text: "Red at sunset." });
  const forked = await chat(["--session", "fork-source", "--fork-session", "and at sunset?"], "");
  assert.equal(forked.code, 0, forked.stderr);
  const note = /^session (chat-[0-9a-f]+) of forker at \S+: a copy of session fork-source, which stays as it was \(to come back: harness chat --session (\S+), or harness chat --continue\)\n/m.exec(forked.stderr);
  assert.ok(note, forked.stderr);
  assert.equal(note[2], note[1]);
  const forkId = note[1];
  // The fork shows the conversation it copied, and the model gets it as history.
  assert.equal(forked.stdout, "It is blue.\nRed at sunset.\n");
  assert.match(lastHistory(), /what colour is the sky\?[\s\S]*It is blue\.[\s\S]*and at sunset\?/);

  // The original is as it was: not the fork's prompt, the same title and number of messages.
  const original = await chat(["--session", "fork-source"], "");
  assert.equal(original.code, 0, original.stderr);
  assert.equal(original.stdout, "It is blue.\n");
  assert.doesNotMatch(original.stderr, /and at sunset/);
  const sourceAfter = await summaryOf("forker", "fork-source");
  assert.equal(sourceAfter?.title, sourceBefore.title);
  assert.equal(sourceAfter?.messageCount, sourceBefore.messageCount);
  // The fork is a session of its own, found again by its id.
  const back = await chat(["--session", forkId], "");
  assert.equal(back.stdout, "It is blue.\nRed at sunset.\n");
});

test("--resume ID --fork-session forks ID; --continue --fork-session forks the latest, or starts a new session when there is none", async () => {
  const user = "forker-continue";
  server.fake.push({ text: "Nothing yet." });
  const none = await chat(["--continue", "--fork-session", "hello"], "", user);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stderr, /^\(no session to continue: a new one\)\nsession (chat-[0-9a-f]+) of forker-continue at \S+ \(to come back/);
  assert.doesNotMatch(none.stderr, /a copy of/);
  const firstId = /^session (\S+)/m.exec(none.stderr)![1];

  server.fake.push({ text: "Continued in a copy." });
  const continued = await chat(["-c", "--fork-session", "go on"], "", user);
  assert.equal(continued.code, 0, continued.stderr);
  assert.match(continued.stderr, new RegExp(`^session (\\S+) of forker-continue at \\S+: a copy of session ${firstId}, which stays as it was`, "m"));
  assert.match(lastHistory(), /hello[\s\S]*Nothing yet\.[\s\S]*go on/);
  const copyId = /^session (\S+)/m.exec(continued.stderr)![1];
  assert.notEqual(copyId, firstId);

  server.fake.push({ text: "Resumed in a copy." });
  const resumed = await chat(["--resume", firstId, "--fork-session", "once more"], "", user);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`: a copy of session ${firstId}, which stays as it was`));
  assert.equal(resumed.stdout, "Nothing yet.\nResumed in a copy.\n");
  assert.equal((await summaryOf(user, firstId))?.messageCount, 2, "the original has its first exchange only");
});

test("--fork-session without a session to copy is refused; a session that is not there is named, a name none could have is a usage error", async () => {
  const asked = server.fake.requests.length;
  const alone = await chat(["--fork-session", "hello"], "");
  assert.equal(alone.code, 2);
  assert.equal(alone.stderr, 'harness: --fork-session copies the session of --continue, --resume or --session: give one of them (try "harness chat --help")\n');
  const missing = await chat(["--session", "no-such-session", "--fork-session", "hello"], "");
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^harness: --fork-session: there is no session "no-such-session" here; the latest: \S+/);
  const badName = await chat(["--resume", "not a name!", "--fork-session", "hello"], "");
  assert.equal(badName.code, 2, "a name no session could have is a usage error, not a missing session");
  assert.match(badName.stderr, /^harness: --resume: "not a name!" /);
  const both = await chat(["--resume", "a", "--session", "b"], "");
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--resume and --session each name the session: give one of them/);
  assert.equal(server.fake.requests.length, asked, "nothing reached the model");
});

test("harness chat --help lists --fork-session and --resume", async () => {
  const help = await harness(["chat", "--help"], {}).result;
  assert.equal(help.code, 0);
  assert.match(help.stdout, /\n {2}-r, --resume ID {4}session ID, which must exist already; without ID, the sessions newest first,\n[^]*?\n {2}--fork-session {5}with -c, --resume or --session: go on in a new session/);
});

test("--fork-session of a session whose run is under way says when the copy's files cannot be put back as they were before that run", async (t) => {
  // A server whose machine has no git keeps no checkpoints of the files.
  const bare = await startChatServer("harness-chat-fork-nogit-", { PATH: dirname(process.execPath) });
  t.after(() => bare.stop());
  let release!: () => void;
  bare.fake.push({ text: "Still at it", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Copied." });
  t.after(() => release());
  const source = createHarnessClient({ url: bare.server.url, userId: "forker", sessionId: "busy-source" });
  t.after(() => source.close());
  await source.connect();
  source.send({ type: "submit", prompt: "work on it" });
  await source.waitFor((state) => state.status === "running" && state.messages.some((m) => m.content.includes("Still at it")), 10_000);

  const forked = await harness(["chat", "--session", "busy-source", "--fork-session", "and now?"], { HARNESS_URL: bare.server.url, HARNESS_USER: "forker" }, { stdin: "" }).result;
  assert.equal(forked.code, 0, forked.stderr);
  assert.match(forked.stderr, /: a copy of session busy-source, which stays as it was .*\n\(the fork's files are the source's as they are now: file checkpoints need git, which is not installed on the runner's machine\)\n/);
  // The copy holds the conversation from before the run under way, and goes on from there.
  assert.equal(forked.stdout, "Copied.\n");
  assert.equal(source.state?.status, "running", "the source's run goes on");
});
