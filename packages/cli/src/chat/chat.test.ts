// `harness chat` spawned as a user runs it, against a real server process and the fake Anthropic
// server: what it shows, what it sends, how it ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { createServer, type Socket } from "node:net";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarnessServer, toolThenText } from "@harness/test-utils";
import { chatServerForFile, pipedChat } from "../test-support.ts";

const server = chatServerForFile("harness-chat-");

/** `harness chat args…` with `input` as its piped standard input. */
const chat = (args: string[], input: string, env: Record<string, string> = {}, onStdout?: (text: string, child: ChildProcess) => void) => pipedChat(server.url, args, input, env, onStdout);

test("piped prompts run one after the other; a later chat on the session shows the conversation", async () => {
  server.fake.push({ text: ["Hello ", "there"] }, { text: "Second answer" });
  const first = await chat(["--session", "piped"], "hi\nand again\n");
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, "Hello there\nSecond answer\n");
  assert.match(first.stderr, /^session piped of tester at http:\/\/127\.0\.0\.1:\d+\n/);
  assert.doesNotMatch(first.stderr, /› hi/, "a prompt typed here is not echoed again");

  const again = await chat(["--session", "piped"], "");
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /› hi\n/);
  assert.match(again.stderr, /› and again\n/);
  assert.equal(again.stdout, "Hello there\nSecond answer\n");
});

test("a prompt given as an argument runs first, then the piped lines, and the chat ends", async () => {
  server.fake.push({ text: "First" }, { text: "Second" });
  const result = await chat(["--session", "arg-then-pipe", "from the argument"], "from the pipe\n");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "First\nSecond\n");
  server.fake.push({ text: "Only" });
  const alone = await chat(["--session", "arg-alone", "only this"], "");
  assert.equal(alone.code, 0, alone.stderr);
  assert.equal(alone.stdout, "Only\n");
});

test("a call that needs approval is shown with how to answer it; /approve lets it run", async () => {
  server.fake.push(...toolThenText("Bash", { command: "mkdir -p out && echo chat-approved" }, "Done."));
  const result = await chat(["--session", "approve"], "run the echo\n/approve\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /● Bash\(mkdir -p out && echo chat-approved\)\n\? Bash needs approval: mkdir -p out && echo chat-approved — y to allow, n \[reason\] to deny\n {2}⎿ {2}chat-approved\n/);
  assert.match(result.stdout, /Done\.\n$/);
});

test("at an approval y allows the call and n with a reason denies it; other text is refused, not sent", async () => {
  server.fake.push(...toolThenText("Bash", { command: "touch y.txt" }, "Made it."), ...toolThenText("Bash", { command: "rm y.txt" }, "Kept it."));
  const before = server.fake.requests.length;
  const result = await chat(["--session", "answer-y"], "make it\nwhat is that?\ny\nremove it\nn keep the file\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /\? Bash needs approval: touch y\.txt — y to allow, n \[reason\] to deny\n/);
  assert.match(result.stderr, /✗ a call waits for approval: y to allow it, n \[reason\] to deny it \(or \/cancel the run\); then type your message\n/);
  assert.match(result.stderr, /\(allowed Bash: touch y\.txt\)\n/);
  assert.match(result.stderr, /\(denied Bash: rm y\.txt; the reason goes to the agent\)\n/);
  assert.ok(existsSync(join(server.dataDir, "workspaces/tester/answer-y/y.txt")), "the allowed call ran; the denied one did not");
  const sent = server.fake.requests.slice(before).map((request) => JSON.stringify(request.body.messages)).join("\n");
  assert.doesNotMatch(sent, /what is that\?|"y"/, "neither the refused line nor the answer reached the model");
  assert.match(sent, /keep the file/);
  assert.equal(result.stdout, "Made it.\nKept it.\n");
});

test("calls keep the numbers shown while others are answered: /approve 2 runs the call shown as 2", async () => {
  server.fake.push({ toolUses: ["a", "b", "c"].map((name) => ({ name: "Bash", input: { command: `touch ${name}.txt` } })) }, { text: "Made them." });
  const result = await chat(["--session", "numbers"], "make three\n/approve 1\n/approve 2\n/deny 2 no\n/approve 3\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /\? Bash needs approval: touch b\.txt — \/approve 2 to allow/);
  assert.match(result.stderr, /✗ call 2 no longer waits for approval \(it was answered\); waiting: \/deny 3\n/);
  for (const name of ["a", "b", "c"]) assert.ok(existsSync(join(server.dataDir, `workspaces/tester/numbers/${name}.txt`)), `${name}.txt was made`);
  assert.match(result.stdout, /Made them\.\n$/);
});

test("/deny sends its reason to the model; the call shows as refused", async () => {
  server.fake.push(...toolThenText("Bash", { command: "rm -rf build" }, "Understood."));
  const before = server.fake.requests.length;
  const result = await chat(["--session", "deny"], "clean up\n/deny keep the build\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /● Bash\(rm -rf build\)\n\? Bash needs approval: rm -rf build — .*\n {2}✗ {2}The user denied this tool call: keep the build\n/);
  assert.match(JSON.stringify(server.fake.requests[before + 1].body), /keep the build/);
  assert.match(result.stdout, /Understood\.\n$/);
});

test("lines that cannot be acted on say why and the chat goes on", async () => {
  server.fake.push({ text: "still here" });
  const result = await chat(["--session", "bad-lines"], "/approve\n/mode sideways\n/cancel\nhello\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /✗ no call is waiting for approval\n/);
  assert.match(result.stderr, /✗ \/mode takes one of default, acceptEdits, bypassPermissions \(or fullAuto\), not "sideways"\n/);
  assert.match(result.stderr, /✗ no run is under way\n/);
  assert.equal(result.stdout, "still here\n");
});

test("a prompt too long for the server is refused before it is sent, saying its size, and the chat goes on", async () => {
  server.fake.push({ text: "after the long one" });
  const before = server.fake.requests.length;
  const long = `summarise ${"é".repeat(600_000)}`;
  const result = await chat(["--session", "too-long"], `${long}\nhello\n`);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /✗ a submit of 1,200,0\d\d bytes is over the 1,048,576 bytes \(1 MiB\) a frame may hold: shorten its prompt\n/);
  assert.equal(result.stdout, "after the long one\n");
  assert.equal(server.fake.requests.length, before + 1, "only the short prompt reached the model");
  const later = await chat(["--session", "too-long"], "");
  assert.doesNotMatch(later.stderr, /summarise/, "the long prompt is not in the conversation");
});

test("piped commands that start nothing do not hold up the lines after them", async () => {
  server.fake.push({ text: "configured" });
  const before = server.fake.requests.length;
  const result = await chat(["--session", "configure"], "/mode acceptEdits\n/mode acceptEdits\n/model claude-test-model\ngo\n");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "configured\n");
  assert.match(result.stderr, /\(permission mode acceptEdits from the next model call on\)\n/);
  assert.match(result.stderr, /\(model claude-test-model from the next model call on\)\n/);
  assert.equal(server.fake.requests[before].body.model, "claude-test-model");
});

test("Ctrl+C during a piped chat's run cancels it and ends the chat with 130; the lines after it are not sent", async () => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  server.fake.push({ text: ["Thinking", " hard"], hold });
  const before = server.fake.requests.length;
  let interrupted = false;
  const result = await chat(["--session", "interrupted"], "think\nnot this\n", {}, (text, child) => {
    if (!interrupted && text.includes("Thinking hard")) {
      interrupted = true;
      child.kill("SIGINT");
    }
  });
  release();
  assert.equal(result.code, 130, result.stderr);
  assert.match(result.stderr, /cancelling the run/);
  assert.equal(server.fake.requests.length - before, 1, "the next line was not submitted");
  assert.doesNotMatch(result.stderr, /✗/, "nor tried and refused");
});

test("/rewind N puts the files and the conversation back to before prompt N", async () => {
  server.fake.push(...toolThenText("Bash", { command: "echo one > notes.txt" }, "Wrote one."), ...toolThenText("Bash", { command: "echo two > notes.txt" }, "Wrote two."));
  const result = await chat(["--session", "rewind"], "/mode fullAuto\nwrite one\nwrite two\n/rewind\n/rewind 2\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /\/rewind N puts the conversation and the files back to how they were before prompt N:\n {2}1 {2}write one\n {2}2 {2}write two\n/);
  assert.match(result.stderr, /\(rewound: the conversation goes on from before › write two\)\n$/);
  assert.equal(readFileSync(join(server.dataDir, "workspaces/tester/rewind/notes.txt"), "utf8"), "one\n");
  const later = await chat(["--session", "rewind"], "");
  assert.equal(later.stdout, "Wrote one.\n");
});

test("/clear shows where the model's context starts afresh, live and when the session is shown again", async () => {
  server.fake.push({ text: "One" }, { text: "Two" });
  const separator = "── context cleared: the model starts afresh; earlier messages stay in the session's history ──\n";
  const result = await chat(["--session", "cleared"], "hi\n/clear\nagain\n");
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stderr.includes(separator), result.stderr);
  assert.equal(result.stdout, "One\nTwo\n");
  const later = await chat(["--session", "cleared"], "");
  assert.ok(later.stderr.startsWith(`› hi\n${separator}› again\n`), later.stderr);
});

test("/commands lists the agent's commands, the session's own among them, without a model call", async () => {
  const commands = join(server.dataDir, "workspaces/tester/commands/.claude/commands");
  mkdirSync(commands, { recursive: true });
  writeFileSync(join(commands, "ship.md"), "---\ndescription: Tag and push a release\n---\nShip it.\n");
  const before = server.fake.requests.length;
  const result = await chat(["--session", "commands"], "/commands\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Built-in commands:\n {2}\/compact/);
  assert.match(result.stdout, /\/ship — Tag and push a release \(project command\)/);
  assert.equal(server.fake.requests.length, before);
});

test("/todos, /model and /export answer in the chat through the server, without a model call; /model ID then /model shows the switch", async () => {
  const todos = [{ content: "Ship it", status: "in_progress", activeForm: "Shipping it" }];
  server.fake.push(...toolThenText("TodoWrite", { todos }, "Planned."));
  const first = await chat(["--session", "session-reports"], "plan it\n");
  assert.equal(first.code, 0, first.stderr);
  const before = server.fake.requests.length;
  const result = await chat(["--session", "session-reports"], "/todos\n/model claude-opus-4-1\n/model\n/export\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^Todos: 0 of 1 completed\n\n {2}\[>\] Ship it$/m);
  assert.match(result.stdout, /^Current model: claude-opus-4-1$/m);
  assert.match(result.stdout, /^ {2}opus +→ /m);
  assert.match(result.stdout, /^> plan it\n\n⏺ TodoWrite\(/m);
  assert.equal(server.fake.requests.length, before);
});

test("/status and /memory answer in the chat through the server, from the session's workspace, without a model call; /status names the session by the id that resumes it", async () => {
  const workspace = join(server.dataDir, "workspaces/tester/inspect");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, "CLAUDE.md"), "Use tabs.\n");
  const before = server.fake.requests.length;
  const result = await chat(["--session", "inspect"], "/status\n/memory\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^Working directory: +\S*workspaces\/tester\/inspect$/m);
  // The id harness chat --session and --resume take, not one the agent made up for its run.
  assert.match(result.stdout, /^Session id: +inspect$/m);
  assert.match(result.stdout, /^ {2}\S*workspaces\/tester\/inspect\/CLAUDE\.md \(project\): 10 B$/m);
  assert.equal(server.fake.requests.length, before);
});

test("a run's notices are shown: a settings file of the session's that cannot be read is named", async () => {
  server.fake.push({ text: "First" }, { text: "Second" });
  const first = await chat(["--session", "notices"], "hi\n");
  assert.equal(first.code, 0, first.stderr);
  const settings = join(server.dataDir, "workspaces/tester/notices/.claude/settings.json");
  mkdirSync(join(settings, ".."), { recursive: true });
  writeFileSync(settings, "{ not json");
  const result = await chat(["--session", "notices"], "again\n");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, new RegExp(`\\n! ${settings.replace(/[.]/g, "\\.")}: invalid JSON: `));
  assert.equal(result.stdout, "First\nSecond\n");
});

test("a server that wants a token says so, apart from one that is not there", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-chat-token-"));
  const guarded = await startHarnessServer({ dataDir: dir, env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.fake.url, HARNESS_TOKEN: "a-token-of-sixteen-chars" } });
  t.after(async () => {
    await guarded.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const none = await chat(["--session", "t"], "", { HARNESS_URL: guarded.url });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /: the server at http:\/\/127\.0\.0\.1:\d+ needs a token: set HARNESS_TOKEN to the token it was started with\n$/);
  const wrong = await chat(["--session", "t"], "", { HARNESS_URL: guarded.url, HARNESS_TOKEN: "not-the-right-token" });
  assert.match(wrong.stderr, /: the server at http:\/\/127\.0\.0\.1:\d+ refused the token: set HARNESS_TOKEN to the token it was started with\n$/);
  const right = await chat(["--session", "t"], "", { HARNESS_URL: guarded.url, HARNESS_TOKEN: "a-token-of-sixteen-chars" });
  assert.equal(right.code, 0, right.stderr);
  const listRefused = await chat(["--continue"], "", { HARNESS_URL: guarded.url });
  assert.equal(listRefused.code, 1);
  assert.equal(
    listRefused.stderr,
    `harness: --continue: cannot list the sessions of tester at ${guarded.url}: the server answered 401 to the list of sessions: missing or wrong token: send Authorization: Bearer <token> or ?token=<token>\n`,
  );
  const continued = await chat(["--continue"], "", { HARNESS_URL: guarded.url, HARNESS_TOKEN: "a-token-of-sixteen-chars" });
  assert.equal(continued.code, 0, continued.stderr);
  // Session t was opened, never used, so not kept.
  assert.match(continued.stderr, /^\(no session to continue: a new one\)\nsession chat-[0-9a-f]+ of tester at /);
});

test("input that ends while a call waits for approval, or after the run was cancelled, ends the chat with 1", async () => {
  // Only the call: the run never gets as far as a reply.
  server.fake.push({ toolUses: [{ name: "Bash", input: { command: "touch z.txt" } }] });
  const waiting = await chat(["--session", "left-waiting"], "make z\n");
  assert.equal(waiting.code, 1, waiting.stderr);
  assert.match(waiting.stderr, /\ninput ended while a call waits for approval; the session keeps it: answer it with harness chat --session left-waiting\n$/);

  let release!: () => void;
  server.fake.push({ text: "Thinking", hold: new Promise<void>((resolve) => (release = resolve)) });
  let streaming!: () => void;
  const seen = new Promise<void>((resolve) => (streaming = resolve));
  const first = chat(["--session", "cancelled-elsewhere"], "think\n", {}, (text) => text.includes("Thinking") && streaming());
  await Promise.race([seen, first]);
  const other = await chat(["--session", "cancelled-elsewhere"], "/cancel\n");
  release();
  assert.equal(other.code, 0, other.stderr);
  const cancelled = await first;
  assert.equal(cancelled.code, 1, cancelled.stderr);
  assert.match(cancelled.stderr, /\(cancelled\)\n/);
});

test("a run that fails shows the error and the chat exits 1", async () => {
  server.fake.push({ kind: "http-error", status: 500, message: "the model fell over" });
  const result = await chat(["--session", "fails"], "try\n");
  assert.equal(result.code, 1);
  assert.match(result.stderr, /\n✗ Anthropic API error 500 \(api_error\): the model fell over\n$/);
});

test("no server there, or bad ids: a one-line message and the exit status", async () => {
  const nothing = await chat(["--session", "x"], "", { HARNESS_URL: "http://127.0.0.1:9" });
  assert.equal(nothing.code, 1);
  assert.match(nothing.stderr, /^harness: could not connect to ws:\/\/127\.0\.0\.1:9\/ws\?userId=tester&sessionId=x: nothing answers at http:\/\/127\.0\.0\.1:9: is the server running\? /);
  assert.equal(nothing.stderr.trim().split("\n").length, 1);
  const nothingToContinue = await chat(["--continue"], "", { HARNESS_URL: "http://127.0.0.1:9" });
  assert.equal(nothingToContinue.code, 1);
  assert.match(nothingToContinue.stderr, /^harness: --continue: cannot list the sessions of tester at http:\/\/127\.0\.0\.1:9: nothing answers at http:\/\/127\.0\.0\.1:9: is the server running\? /);

  const badUser = await chat(["--user", "a b"], "");
  assert.equal(badUser.code, 2);
  assert.equal(badUser.stderr, `harness: --user: "a b" must be 1 to 128 letters, digits, '.', '_' or '-'\n`);
  const badUrl = await chat(["--url", "ftp://x"], "");
  assert.equal(badUrl.code, 2);
  assert.equal(badUrl.stderr, 'harness: --url: "ftp://x" is not an http(s) or ws(s) URL\n');
  const copied = await chat(["--url", "ws://127.0.0.1:7700/ws?userId=me&sessionId=first"], "");
  assert.equal(copied.code, 2);
  assert.equal(copied.stderr, 'harness: --url: "ws://127.0.0.1:7700/ws?userId=me&sessionId=first" is the server\'s address, without a query: the user, the session and the token go in --user, --session and HARNESS_TOKEN\n');
  const fromEnv = await chat([], "", { HARNESS_URL: "127.0.0.1:7700", HARNESS_USER: "john doe" });
  assert.equal(fromEnv.code, 2);
  assert.equal(fromEnv.stderr, 'harness: HARNESS_URL: "127.0.0.1:7700" is not an http(s) or ws(s) URL\n', "a bad value is named by where it came from");
  const userFromEnv = await chat([], "", { HARNESS_USER: "john doe" });
  assert.equal(userFromEnv.stderr, `harness: HARNESS_USER: "john doe" must be 1 to 128 letters, digits, '.', '_' or '-'\n`);
});

test("something that takes the connection and never answers: the chat says so instead of waiting for ever", async (t) => {
  const held = new Set<Socket>();
  const mute = createServer((socket) => held.add(socket));
  await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const socket of held) socket.destroy();
    mute.close();
  });
  const url = `http://127.0.0.1:${(mute.address() as { port: number }).port}`;
  const result = await chat(["--session", "mute"], "hello\n", { HARNESS_URL: url });
  assert.equal(result.code, 1);
  assert.equal(result.stderr, `harness: could not connect to ${url}: no answer in 10 s; something there takes connections but does not answer (a stopped server, or another program on that port?)\n`);
});
