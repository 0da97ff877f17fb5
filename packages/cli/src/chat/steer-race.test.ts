// `harness chat` at a terminal, when a run ends or starts between the Enter of a line and the
// moment the chat acts on it (it waits a few milliseconds for more pasted lines first): the line
// still shows once. The chat runs in this process on a terminal of the test's making, against a
// real server process and the fake Anthropic server; the chat's timers are the test's to move, so
// that the run's change lands in that gap every time.
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { createHarnessClient } from "@harness/client";
import { ioFor, terminalChat as chatAt } from "./test-support.ts";
import { chatServerForFile, slowLink } from "../test-support.ts";

const server = chatServerForFile("harness-chat-race-");

/** A chat on `sessionId` at a terminal the test types into and reads. */
const terminalChat = (t: { after(fn: () => unknown): void }, sessionId: string, url = server.url) => chatAt(t, url, "race", sessionId);

test("a line entered as a steer whose run ends before it is sent starts a run of its own and shows once, as a prompt", async (t) => {
  let release!: () => void;
  server.fake.push({ text: "Working on it", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Second reply" });
  t.after(() => release());
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "race-ended");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("go\r");
  await chat.sees(/Working on it/);
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  // Entered while the run goes on: its typed copy is taken off, as a steer's is.
  chat.type("and then the tests\r");
  await ioFor(100);
  // The run ends before the chat acts on the line (the reply's line is ended then).
  release();
  await chat.sees(/Working on it\r\n/);
  await ioFor(100);
  mock.timers.tick(1_000);
  mock.timers.reset();
  await chat.sees(/Second reply/);
  const [request] = (await server.fake.waitForRequests(before + 2)).slice(before + 1);
  assert.match(JSON.stringify(request.body.messages.at(-1)), /and then the tests/);
  chat.end();
  assert.equal(await chat.status, 0);
  const rows = chat.rows();
  assert.deepEqual(rows.filter((row) => row.includes("the tests")), ["› and then the tests"], rows.join("\n"));
});

test("a line entered as a prompt whose session starts a run before it is sent steers that run and shows once, as typed", async (t) => {
  let release!: () => void;
  server.fake.push({ text: "Busy with it", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Steered." });
  t.after(() => release());
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "race-started");
  await chat.sees(/Ctrl\+D leaves/);
  const other = createHarnessClient({ url: server.url, userId: "race", sessionId: "race-started" });
  t.after(() => other.close());
  await other.connect();
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  // Entered with no run under way: it stays on the screen as typed.
  chat.type("mind the tests\r");
  await ioFor(100);
  // Another client of the session starts a run before the chat acts on the line.
  other.send({ type: "submit", prompt: "from elsewhere" });
  await chat.sees(/Busy with it/);
  await ioFor(100);
  mock.timers.tick(1_000);
  mock.timers.reset();
  await ioFor(300);
  release();
  await chat.sees(/Steered\./);
  const [request] = (await server.fake.waitForRequests(before + 2)).slice(before + 1);
  assert.match(JSON.stringify(request.body.messages), /mind the tests/);
  chat.end();
  assert.equal(await chat.status, 0);
  const rows = chat.rows();
  assert.deepEqual(rows.filter((row) => row.includes("the tests")), ["mind the tests"], rows.join("\n"));
  assert.doesNotMatch(rows.join("\n"), /already in progress|✗/);
});

test("a line entered after a prompt, before the server says its run started, steers that run and shows once", async (t) => {
  let release!: () => void;
  server.fake.push({ text: "On the first", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Both done." });
  t.after(() => release());
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "race-starting", await slowLink(t, server.url, 400));
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("first task\r");
  // The prompt is sent; what the server says of its run is still on its way.
  await new Promise((resolve) => setTimeout(resolve, 150));
  chat.type("second task\r");
  await chat.sees(/On the first/);
  await server.fake.waitForRequests(before + 1);
  release();
  await chat.sees(/Both done\./);
  const [request] = (await server.fake.waitForRequests(before + 2)).slice(before + 1);
  assert.match(JSON.stringify(request.body.messages), /second task/);
  chat.end();
  assert.equal(await chat.status, 0);
  const rows = chat.rows();
  assert.doesNotMatch(rows.join("\n"), /already in progress|✗/);
  assert.deepEqual(rows.filter((row) => row.includes("second task")), ["↳ steer: second task"], rows.join("\n"));
});

test("a paste read in two parts, a run ending between them, is delivered whole: the part kept typed steers the run the first part started", async (t) => {
  let release!: () => void;
  let releaseNext!: () => void;
  server.fake.push({ text: "Working on it", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "First read", hold: new Promise<void>((resolve) => (releaseNext = resolve)) });
  t.after(() => (release(), releaseNext()));
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "race-split-paste");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("go\r");
  await chat.sees(/Working on it/);
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  // The paste's first read comes while the run goes on: its typed copy is taken off, as a steer's is.
  chat.type("part one\r");
  await ioFor(100);
  const other = createHarnessClient({ url: server.url, userId: "race", sessionId: "race-split-paste" });
  t.after(() => other.close());
  await other.connect();
  release();
  await other.waitFor((state) => state.status === "idle");
  await ioFor(100);
  // Its second read comes once the run is over: its typed copy stays, as a prompt's does.
  chat.type("part two\r");
  await ioFor(100);
  mock.timers.tick(1_000);
  mock.timers.reset();
  // The first part starts a run; the second reaches its model call, or the next one.
  const [first] = (await server.fake.waitForRequests(before + 2)).slice(before + 1);
  assert.match(JSON.stringify(first.body.messages), /part one/);
  if (!JSON.stringify(first.body.messages).includes("part two")) server.fake.push({ text: "Second read" });
  releaseNext();
  const done = await other.waitFor((state) => state.status === "idle" && state.messages.some((m) => m.role === "user" && m.content.includes("part two")), 20_000);
  assert.equal(done.messages.at(-1)?.status, "complete");
  const last = server.fake.requests.at(-1)!;
  assert.match(JSON.stringify(last.body.messages), /part one[^]*part two/);
  chat.end();
  assert.equal(await chat.status, 0);
  const rows = chat.rows();
  assert.doesNotMatch(rows.join("\n"), /already in progress|✗/);
  // The typed copy of the second part stayed where it was entered; the first shows as the prompt it became.
  assert.deepEqual(rows.filter((row) => row.includes("part ")), ["part two", "› part one"], rows.join("\n"));
});

test("a line sent as a steer while the chat still sees a run the server has ended shows once, as the prompt the session made of it", async (t) => {
  let release!: () => void;
  server.fake.push({ text: "Almost done", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Taken as a prompt" });
  const before = server.fake.requests.length;
  t.after(() => release());
  // What the server says reaches the chat late.
  const chat = terminalChat(t, "race-stale-steer", await slowLink(t, server.url, 1000));
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("go\r");
  await chat.sees(/Almost done/);
  const other = createHarnessClient({ url: server.url, userId: "race", sessionId: "race-stale-steer" });
  t.after(() => other.close());
  await other.connect();
  release();
  await other.waitFor((state) => state.status === "idle");
  // The chat still sees the run: the line is taken off as a steer's is, and sent as one.
  chat.type("one more thing\r");
  await chat.sees(/Taken as a prompt/);
  const [request] = (await server.fake.waitForRequests(before + 2)).slice(before + 1);
  assert.match(JSON.stringify(request.body.messages.at(-1)), /one more thing/);
  chat.end();
  assert.equal(await chat.status, 0);
  const rows = chat.rows();
  assert.deepEqual(rows.filter((row) => row.includes("more thing")), ["› one more thing"], rows.join("\n"));
});
