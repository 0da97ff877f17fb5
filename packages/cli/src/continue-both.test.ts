// `harness -c` and `harness -p -c` go on with the most recent conversation of the directory,
// whichever of them had it last (as claude -c and claude -p -c do); `--resume ID` takes the ids of
// both. Through the real command, against the fake model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { runsDir } from "./run/history.ts";
import { projectPath } from "./project-dir.ts";
import { chatInTerminal, harness, leaveChat, tempDir, withFake } from "./test-support.ts";

type Fake = Awaited<ReturnType<typeof startFakeAnthropic>>;

function setup(t: { after(fn: () => unknown): void }, fake: Fake) {
  const project = projectPath(tempDir(t));
  const env = { HOME: tempDir(t), ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me" };
  /** `harness args…` in the project, as a piped chat or a print run. */
  const run = async (...args: string[]) => {
    const result = await harness(args, env, { cwd: project, stdin: "" }).result;
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    return result;
  };
  const print = async (...args: string[]) => JSON.parse((await run("-p", "--output-format", "json", ...args)).stdout) as { session_id: string; result: string };
  /** The prompts the model was last sent, in order. */
  const prompts = () =>
    (fake.requests.at(-1)!.body.messages as { role: string; content: unknown }[])
      .filter((m) => m.role === "user")
      .map((m) => (typeof m.content === "string" ? m.content : (m.content as { type: string; text?: string }[]).filter((b) => b.type === "text").map((b) => b.text).join("")))
      .filter((text) => text !== "");
  return { project, env, run, print, prompts };
}

test("harness -p then harness -c: the chat goes on with the print run's conversation, and harness -p -c then with the chat's", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "One." }, { text: "Two." }, { text: "Three." }, { text: "Four." }, { text: "Five." }, { text: "Six." }] }));
  const { run, print, prompts } = setup(t, fake);
  const first = await print("first");
  const id = first.session_id;

  const chat = await run("-c", "second");
  assert.match(chat.stderr, new RegExp(`^session ${id} of me in \\S+`, "m"));
  assert.match(chat.stderr, /› first\n/, "the earlier conversation is shown");
  assert.equal(chat.stdout, "One.\nTwo.\n");
  assert.deepEqual(prompts(), ["first", "second"]);

  const third = await print("-c", "third");
  assert.equal(third.session_id, id, "one conversation, one id");
  assert.deepEqual(prompts(), ["first", "second", "third"]);

  const again = await run("--resume", id, "fourth");
  assert.equal(again.stdout, "One.\nTwo.\nThree.\nFour.\n");
  assert.deepEqual(prompts(), ["first", "second", "third", "fourth"]);

  await print("--resume", id, "fifth");
  const named = await run("chat", "--local", "--session", id, "sixth");
  assert.equal(named.stdout, "One.\nTwo.\nThree.\nFour.\nFive.\nSix.\n", "--session of the id goes on with what the run added too");
});

test("a chat then harness -p -c: the run goes on with the chat's conversation, under the chat's id, which harness -p --resume takes too", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }, { text: "More." }, { text: "Again." }, { text: "Back." }] }));
  const { run, print, prompts } = setup(t, fake);
  const chat = await run("say hello");
  const id = /^session (chat-[0-9a-f]+) of me/m.exec(chat.stderr)?.[1];
  assert.ok(id, chat.stderr);
  assert.match(chat.stderr, new RegExp(`\\(to come back: harness --resume ${id}, or harness -c; harness -p -c "<prompt>" goes on with it in print mode\\)`));

  const more = await print("-c", "more");
  assert.equal(more.session_id, id);
  assert.deepEqual(prompts(), ["say hello", "more"]);
  const resumed = await print("--resume", id, "again");
  assert.equal(resumed.session_id, id);
  assert.deepEqual(prompts(), ["say hello", "more", "again"]);

  const back = await run("-c", "back");
  assert.match(back.stderr, new RegExp(`^session ${id} of me`, "m"));
  assert.equal(back.stdout, "Hi.\nMore.\nAgain.\nBack.\n", "the chat shows what the runs added");
  assert.deepEqual(prompts(), ["say hello", "more", "again", "back"]);
});

test("conversations kept before, a run's file of an earlier version and a chat's session, are both still found, the newer first", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Chat reply." }, { text: "Continued." }, { text: "Later." }] }));
  const { project, env, run, print, prompts } = setup(t, fake);
  await run("a chat question");
  // A run's conversation as earlier versions kept it (no revision, nothing spent), written before the chat.
  const old = "5b6d0f6c-3c3f-4f38-9b8e-6a3f0e0d2a11";
  const dir = runsDir(env.HOME, project);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${old}.json`);
  writeFileSync(file, JSON.stringify({ version: 1, id: old, cwd: project, transcript: [{ role: "user", content: "an old run" }, { role: "assistant", content: [{ type: "text", text: "Old answer." }] }] }));
  utimesSync(file, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));

  const continued = await print("-c", "go on");
  assert.match(continued.session_id, /^chat-/, "the chat was the more recent");
  assert.deepEqual(prompts(), ["a chat question", "go on"]);

  const resumed = await run("--resume", old, "later");
  assert.equal(resumed.stdout, "Old answer.\nLater.\n");
  assert.deepEqual(prompts(), ["an old run", "later"]);
});

test("--resume with an id neither kept says so, naming the latest of both", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "A." }, { text: "B." }] }));
  const { env, project, run, print } = setup(t, fake);
  const chat = /^session (chat-[0-9a-f]+)/m.exec((await run("from the chat")).stderr)![1];
  const printed = (await print("from a run")).session_id;
  const asked = fake.requests.length;
  const p = await harness(["-p", "--resume", "chat-nosuch", "hello?"], env, { cwd: project }).result;
  assert.equal(p.code, 1);
  assert.match(p.stderr, new RegExp(`no conversation "chat-nosuch" in \\S+; -c goes on with the last one; ids: ${printed} \\("from a run"\\), ${chat} \\("from the chat"\\)\n$`));
  const c = await harness(["--resume", "chat-nosuch", "hello?"], env, { cwd: project, stdin: "" }).result;
  assert.equal(c.code, 1);
  assert.match(c.stderr, new RegExp(`there is no session "chat-nosuch" here; the latest: ${printed}, ${chat} \\(-c goes on with the last one\\)\n$`));
  assert.equal(fake.requests.length, asked);
});

test("harness --resume alone lists the print runs' conversations with the chats, newest first", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "A." }, { text: "B." }] }));
  const { env, project, run, print } = setup(t, fake);
  const chat = /^session (chat-[0-9a-f]+)/m.exec((await run("from the chat")).stderr)![1];
  const printed = (await print("from a run")).session_id;
  // Not at a terminal: the list, and the ids to pass.
  const listed = await harness(["--resume"], env, { cwd: project, stdin: "" }).result;
  assert.equal(listed.code, 2);
  assert.match(listed.stderr, new RegExp(`^Sessions of me, the most recent first:\\n {2}1 {2}from a run {2}· {2}just now {2}· {2}${printed}\\n {2}2 {2}from the chat {2}· {2}just now {2}· {2}${chat}\\n`));
  assert.match(listed.stderr, new RegExp(`pass the id, as harness --resume ${printed}\\n$`));
});

test("at a terminal, harness --resume alone picks a print run's conversation, and the chat goes on with it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Chat answer." }, { text: "Run answer." }, { text: "Picked answer." }] }));
  const { env, project, run, print, prompts } = setup(t, fake);
  await run("from the chat");
  const printed = (await print("from a run")).session_id;
  const chat = chatInTerminal(t, "--local --resume", { cwd: project, env, columns: 100 });
  await chat.sees(/Resume which\? \(1-2, Enter for none\)/);
  chat.type("1\r");
  await chat.sees(new RegExp(`session ${printed} of me`));
  await chat.sees(/Run answer\./);
  chat.type("go on\r");
  await chat.sees(/Picked answer\./);
  assert.deepEqual(prompts(), ["from a run", "go on"]);
  await leaveChat(chat);
});
