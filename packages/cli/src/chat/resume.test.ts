// `/rename` and `/resume` inside `harness chat`, piped, against a real server process and the fake
// Anthropic server: a title given is what every list of the sessions shows, and a chat switches to
// another session without leaving, its later prompts going to that one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { connect } from "node:net";
import type { Duplex } from "node:stream";
import { chatServerForFile, pipedChat } from "../test-support.ts";

const server = chatServerForFile("harness-chat-resume-");

/** `harness chat args…` as `user`, with `input` piped in. */
const chat = (user: string, args: string[], input: string) => pipedChat(server.url, args, input, { HARNESS_USER: user });

/** What the model was last sent, as one text: the conversation it was given. */
const lastHistory = () => server.fake.requests.at(-1)!.body.messages.map((m: { content: unknown }) => JSON.stringify(m.content)).join("\n");

test("/rename names the chat's session: /rename alone says the title, and a new chat's --resume lists it", async () => {
  server.fake.push({ text: "Four." });
  const made = await chat("renamer", ["--session", "sums"], "what is 2+2?\n/rename\n/rename   Arithmetic drill  \n/rename\n");
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stderr, /\(session sums is titled "what is 2\+2\?"; \/rename TITLE renames it\)\n/);
  assert.match(made.stderr, /\(session sums is now titled "Arithmetic drill"\)\n/);
  assert.match(made.stderr, /\(session sums is titled "Arithmetic drill"; \/rename TITLE renames it\)\n/);
  const listed = await chat("renamer", ["--resume"], "");
  assert.match(listed.stderr, /^ {2}1 {2}Arithmetic drill {2}· {2}just now {2}· {2}sums$/m);
  // Another user's chat cannot reach it: its own list stays empty.
  const other = await chat("someone-else", ["--resume"], "");
  assert.match(other.stderr, /there is no session to resume yet/);
});

test("/rename with a title the server refuses says why, and the title stays", async () => {
  server.fake.push({ text: "Noted." });
  const made = await chat("renamer2", ["--session", "kept"], `note this\n/rename ${"x".repeat(201)}\n/rename\n`);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stderr, /✗ \/rename: title: must be at most 200 characters\n/);
  assert.match(made.stderr, /\(session kept is titled "note this"; \/rename TITLE renames it\)\n/);
});

test("/resume lists the sessions, newest first; /resume N switches to one, shows its conversation, and the next prompt goes to it", async () => {
  server.fake.push({ text: "Heron noted." }, { text: "Four." });
  assert.equal((await chat("resumer", ["--session", "birds"], "remember the word heron\n")).code, 0);
  assert.equal((await chat("resumer", ["--session", "sums"], "what is 2+2?\n")).code, 0);
  server.fake.push({ text: "The word was heron." });
  const switched = await chat("resumer", ["--session", "sums"], "/resume\n/resume 2\nwhat word did I ask you to remember?\n");
  assert.equal(switched.code, 0, switched.stderr);
  assert.match(switched.stderr, /Sessions of resumer, the most recent first:\n {2}1 {2}what is 2\+2\? {2}· {2}just now {2}· {2}sums {2}\(this chat\)\n {2}2 {2}remember the word heron {2}· {2}just now {2}· {2}birds\n/);
  assert.match(switched.stderr, /\/resume N switches to one of them \(or \/resume ID\)\n/);
  assert.match(switched.stderr, /\nsession birds of resumer at \S+\n› remember the word heron\n/);
  // The conversation of each session as the chat showed it, then the new reply, in the session switched to.
  assert.equal(switched.stdout, "Four.\nHeron noted.\nThe word was heron.\n");
  assert.match(lastHistory(), /remember the word heron[\s\S]*Heron noted\.[\s\S]*what word did I ask you to remember\?/);
  assert.doesNotMatch(lastHistory(), /2\+2/);
  const birds = await chat("resumer", ["--session", "birds"], "");
  assert.equal(birds.stdout, "Heron noted.\nThe word was heron.\n");
});

test("/resume ID switches by id; what cannot be switched to is refused, saying why", async () => {
  server.fake.push({ text: "One." }, { text: "Two." });
  assert.equal((await chat("byid", ["--session", "first-one"], "first\n")).code, 0);
  assert.equal((await chat("byid", ["--session", "second-one"], "second\n")).code, 0);
  server.fake.push({ text: "Back in the first." });
  const result = await chat("byid", ["--session", "second-one"], "/resume 7\n/resume no-such\n/resume second-one\n/resume first-one\nand now?\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /✗ \/resume: there is no session 7 in the list: \/resume lists them, from 1 to 2\n/);
  assert.match(result.stderr, /✗ \/resume: there is no session "no-such" of byid: \/resume lists them\n/);
  assert.match(result.stderr, /\(this chat is in session second-one already\)\n/);
  assert.match(result.stderr, /\nsession first-one of byid at \S+\n/);
  assert.equal(result.stdout, "Two.\nOne.\nBack in the first.\n");
  assert.match(lastHistory(), /first[\s\S]*One\.[\s\S]*and now\?/);
});

test("/resume to a session whose call waits for approval shows it, and the chat's answer goes to that session", async () => {
  server.fake.push({ toolUses: [{ name: "Bash", input: { command: "echo approved-here" } }] });
  const left = await chat("approver", ["--session", "waits"], "run the echo\n");
  assert.equal(left.code, 1, left.stderr);
  server.fake.push({ text: "Echoed." });
  const result = await chat("approver", ["--session", "elsewhere"], "/resume waits\ny\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /\nsession waits of approver at \S+\n› run the echo\n/);
  assert.match(result.stderr, /Bash/);
  assert.match(result.stdout, /Echoed\.\n$/);
  assert.match(lastHistory(), /approved-here/);
});

test("/resume to a session whose run is under way shows it going on, and the chat can steer it and cancel it", async () => {
  let release!: () => void;
  server.fake.push({ text: "Working on it", hold: new Promise<void>((resolve) => (release = resolve)) });
  let streaming!: () => void;
  const seen = new Promise<void>((resolve) => (streaming = resolve));
  const first = pipedChat(server.url, ["--session", "busy"], "start the work\n", { HARNESS_USER: "busy-user" }, (text) => text.includes("Working") && streaming());
  await Promise.race([seen, first]);
  const other = await chat("busy-user", ["--session", "idle-one"], "/resume busy\nalso mind the tests\n/cancel\n");
  release();
  assert.equal(other.code, 0, other.stderr);
  assert.match(other.stdout, /Working on it/);
  assert.match(other.stderr, /also mind the tests/);
  const cancelled = await first;
  assert.equal(cancelled.code, 1, cancelled.stderr);
  assert.match(cancelled.stderr, /\(cancelled\)\n/);
});

/** A proxy to the server that hands on its REST calls and WebSockets, but refuses the WebSocket of
 * session `refused`; answers the proxy's URL. */
async function refusingProxy(t: { after(fn: () => unknown): void }, refused: string, how: "refuse" | "silent" = "refuse"): Promise<string> {
  const target = new URL(server.url);
  /** The connections taken and never answered: the proxy closes only once they are gone. */
  const held = new Set<Duplex>();
  const proxy = createServer((req, res) => {
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  proxy.on("upgrade", (req, socket, head) => {
    if (new URL(req.url!, "http://x").searchParams.get("sessionId") === refused) {
      // Silent: the connection is taken and nothing ever answers it, as a stopped server's would be.
      if (how === "silent") return void held.add(socket);
      return socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n");
    }
    const upstream = connect(Number(target.port), target.hostname, () => {
      const headers = req.rawHeaders.reduce((lines, value, i) => (i % 2 ? `${lines}${value}\r\n` : `${lines}${value}: `), "");
      upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers}\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  proxy.listen(0, "127.0.0.1");
  await new Promise((resolve) => proxy.once("listening", resolve));
  t.after(() => new Promise((resolve) => (held.forEach((socket) => socket.destroy()), proxy.closeAllConnections(), proxy.close(resolve))));
  return `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
}

test("/resume to a session that cannot be opened says why and the chat stays in its own, which the next prompt goes to", async (t) => {
  server.fake.push({ text: "Far." }, { text: "Near." });
  assert.equal((await chat("stayer", ["--session", "far-away"], "hello far\n")).code, 0);
  assert.equal((await chat("stayer", ["--session", "home-base"], "hello home\n")).code, 0);
  const url = await refusingProxy(t, "far-away");
  server.fake.push({ text: "Still home." });
  const result = await pipedChat(url, ["--session", "home-base"], "/resume far-away\nwhere am I?\n", { HARNESS_USER: "stayer" });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /✗ \/resume: cannot open session far-away \(the chat stays in session home-base\): could not connect/);
  // The conversation of the session it stayed in is not shown again.
  assert.equal(result.stdout, "Near.\nStill home.\n");
  assert.match(lastHistory(), /hello home[\s\S]*where am I\?/);
  assert.doesNotMatch(lastHistory(), /hello far/);
});

test("/resume to a session that never answers gives up after the chat's connect timeout and stays in its own", async (t) => {
  server.fake.push({ text: "Quiet." }, { text: "Here." });
  assert.equal((await chat("waiter", ["--session", "quiet-one"], "hello quiet\n")).code, 0);
  assert.equal((await chat("waiter", ["--session", "here"], "hello here\n")).code, 0);
  const url = await refusingProxy(t, "quiet-one", "silent");
  server.fake.push({ text: "Still here." });
  const started = performance.now();
  const result = await pipedChat(url, ["--session", "here"], "/resume quiet-one\nwhere am I?\n", { HARNESS_USER: "waiter" });
  assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
  assert.match(result.stderr, /✗ \/resume: cannot open session quiet-one \(the chat stays in session here\): no answer in 10 s/);
  assert.ok(performance.now() - started < 25_000, "the chat gave up on the switch in its connect timeout");
  assert.match(lastHistory(), /hello here[\s\S]*where am I\?/);
});
