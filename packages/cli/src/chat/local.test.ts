// `harness chat --local` spawned as a user runs it in a project, against the fake Anthropic server:
// no server to start first; the agent works on the project's own files; the conversation is found
// again with --continue; the server ends with the chat.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, toolThenText, waitFor, type FakeAnthropic } from "@harness/test-utils";
import { harness } from "../test-support.ts";
import { projectDataDir, projectPath } from "../project-dir.ts";

let fake: FakeAnthropic;
let home: string;
let project: string;

before(async () => {
  fake = await startFakeAnthropic();
  home = mkdtempSync(join(tmpdir(), "harness-local-home-"));
  project = mkdtempSync(join(tmpdir(), "harness-local-project-"));
  writeFileSync(join(project, "notes.txt"), "the build runs on Fridays\n");
});
after(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

const env = () => ({ HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me" });

/** `harness chat --local args…` in the project, `input` piped in. */
function localChat(args: string[], input: string, cwd = project) {
  return harness(["chat", "--local", ...args], env(), { cwd, stdin: input }).result;
}

test("a local chat works on the project's own files, keeps its conversation for --continue, and leaves no server behind", async () => {
  fake.push(...toolThenText("Bash", { command: "cat notes.txt && echo made > made.txt" }, "It runs on Fridays."));
  const before = fake.requests.length;
  const first = await localChat(["when does the build run?"], "/approve\n");
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, "It runs on Fridays.\n");
  assert.match(first.stderr, new RegExp(`^session (chat-[0-9a-f]+) of me in ${project.replace(/[.]/g, "\\.")} \\(to come back: harness --resume chat-[0-9a-f]+, or harness -c; harness -p -c "<prompt>" goes on with it in print mode\\)\n`));
  assert.doesNotMatch(first.stderr, /Harness listening/, "the server's own lines stay out of the chat");
  assert.match(JSON.stringify(fake.requests[before + 1].body.messages.at(-1)), /the build runs on Fridays/);
  assert.equal(readFileSync(join(project, "made.txt"), "utf8"), "made\n", "the command ran in the project");
  const sessionId = /^session (\S+)/.exec(first.stderr)![1];
  // Kept outside the project, under ~/.harness/projects.
  assert.deepEqual(readdirSync(project).sort(), ["made.txt", "notes.txt"]);
  assert.equal(readdirSync(join(home, ".harness", "projects")).length, 1);

  fake.push({ text: "Still Fridays." });
  const again = await localChat(["--continue", "and next week?"], "");
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, new RegExp(`^session ${sessionId} of me in \\S+\n`, "m"));
  assert.match(again.stderr, /› when does the build run\?\n/);
  assert.equal(again.stdout, "It runs on Fridays.\nStill Fridays.\n");
  const history = fake.requests.at(-1)!.body.messages.map((m: { content: unknown }) => JSON.stringify(m.content)).join("\n");
  assert.match(history, /when does the build run\?[\s\S]*It runs on Fridays\.[\s\S]*and next week\?/);

  // The top level's --resume, as claude's: the session by its id; one that is not there is refused.
  fake.push({ text: "Fridays again." });
  const resumed = await harness(["--resume", sessionId, "and after that?"], env(), { cwd: project, stdin: "" }).result;
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /Still Fridays\.\nFridays again\.\n$/);
  const asked = fake.requests.length;
  const unknown = await harness(["--resume", "chat-nosuch", "hello?"], env(), { cwd: project, stdin: "" }).result;
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, new RegExp(`--resume: there is no session "chat-nosuch" here; the latest: ${sessionId} \\(-c goes on with the last one\\)\n`));
  assert.equal(fake.requests.length, asked, "the refused prompt never reached the model");
  // The chats' runner processes (they have the chats' home) ended with them.
  await waitFor(() => processesWithHome(home).length === 0 || undefined, "the runners to end", { timeoutMs: 20_000 });
});

test("harness --resume ID --fork-session goes on in a copy of the project's session, which stays as it was", async () => {
  fake.push({ text: "Original answer." });
  const first = await localChat(["--session", "to-fork", "the original question"], "");
  assert.equal(first.code, 0, first.stderr);
  fake.push({ text: "Forked answer." });
  const forked = await harness(["--resume", "to-fork", "--fork-session", "a question in the copy"], env(), { cwd: project, stdin: "" }).result;
  assert.equal(forked.code, 0, forked.stderr);
  assert.match(forked.stderr, /^session (chat-[0-9a-f]+) of me in \S+: a copy of session to-fork, which stays as it was \(to come back: harness --resume chat-[0-9a-f]+, or harness -c; harness -p -c "<prompt>" goes on with it in print mode\)\n/m);
  assert.equal(forked.stdout, "Original answer.\nForked answer.\n");
  const history = fake.requests.at(-1)!.body.messages.map((m: { content: unknown }) => JSON.stringify(m.content)).join("\n");
  assert.match(history, /the original question[\s\S]*Original answer\.[\s\S]*a question in the copy/);
  const original = await localChat(["--session", "to-fork"], "");
  assert.equal(original.stdout, "Original answer.\n");
  assert.doesNotMatch(original.stderr, /a question in the copy/);
});

/** The processes whose environment has HOME=`dir`. */
function processesWithHome(dir: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`HOME=${dir}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

test("a second local chat on the same project while the first is open says where the first is", async () => {
  let release!: () => void;
  fake.push({ text: "Working", hold: new Promise<void>((resolve) => (release = resolve)) });
  const first = harness(["chat", "--local", "--session", "busy"], env(), { cwd: project, stdin: { open: true } });
  first.child.stdin!.write("take your time\n");
  // A local chat starts its own server first.
  await fake.waitForRequests(fake.requests.length + 1, 30_000);
  assert.ok(processesWithHome(home).length >= 2, "the chat and its runner are seen by their home");
  const second = await localChat(["--session", "other"], "");
  assert.equal(second.code, 1);
  assert.match(second.stderr, new RegExp(`^harness: a local chat \\(or harness serve --project\\) is already open on ${project.replace(/[.]/g, "\\.")} \\(pid \\d+\\)`));
  release();
  first.child.stdin!.end();
  const done = await first.result;
  assert.equal(done.code, 0, done.stderr);
});

test("leaving a local chat while a run is going cancels the run, and the conversation says so", async (t) => {
  let release!: () => void;
  fake.push({ text: "Half an answer", hold: new Promise<void>((resolve) => (release = resolve)) });
  t.after(() => release());
  const before = fake.requests.length;
  const chat = harness(["chat", "--local", "--session", "left"], env(), { cwd: project, stdin: { open: true } });
  chat.child.stdin!.write("a long job\n");
  await fake.waitForRequests(before + 1);
  // Terminated (a closed terminal, a stopped service) with the run going.
  chat.child.kill("SIGTERM");
  const left = await chat.result;
  assert.equal(left.code, 143, left.stderr);
  assert.match(left.stderr, /cancelling the run under way: a local chat's runs end with it\n/);
  const back = await localChat(["--session", "left"], "");
  assert.equal(back.code, 0, back.stderr);
  assert.match(back.stderr, /› a long job\n/);
  assert.match(back.stderr, /\(cancelled\)/);
});

test("a local chat whose input ends while a call waits cancels the run, says so once, and exits 1", async () => {
  // Only the call: the run never gets as far as a reply.
  fake.push({ toolUses: [{ name: "Bash", input: { command: "touch z.txt" } }] });
  const result = await localChat(["--session", "left-waiting"], "make z\n");
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /\ninput ended while a call waits for approval: the run is cancelled, as a local chat's runs end with it\n/);
  assert.doesNotMatch(result.stderr, /another client|cancelling the run under way/);
  assert.match(result.stderr, /\(cancelled\)\n$/);
  assert.equal(existsSync(join(project, "z.txt")), false);
});

test("--local takes no --url, --cwd needs --local, --continue and --session exclude each other; a missing project is named", async () => {
  for (const [args, message] of [
    [["--url", "http://127.0.0.1:1"], /--local starts a server of the chat's own: it takes no --url/],
    [["--session", "a", "--continue"], /--continue and --session each name the session/],
  ] as const) {
    const result = await localChat([...args], "");
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, message);
  }
  const cwdAlone = await harness(["chat", "--cwd", project], env(), { cwd: project, stdin: "" }).result;
  assert.match(cwdAlone.stderr, /--cwd names the project of --local: give --local too/);
  const missing = await localChat(["--cwd", join(project, "nowhere")], "");
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot start a server for .*nowhere: the project directory .*nowhere cannot be opened: ENOENT/);
  assert.equal(existsSync(join(project, ".harness")), false);
});

test("harness --model M --max-turns N \"<prompt>\" opens a local chat whose session runs with them", async () => {
  fake.push({ text: "Haiku here." });
  const before = fake.requests.length;
  const { code, stdout, stderr } = await harness(["--model", "claude-haiku-4-5", "--max-turns", "2", "which model?"], env(), { cwd: project, stdin: "" }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Haiku here.\n");
  assert.match(stderr, /\(settings of session chat-[0-9a-f]+: model claude-haiku-4-5, max turns 2\)\n/);
  assert.equal(fake.requests[before].body.model, "claude-haiku-4-5");
});

test("a local chat under HARNESS_DEBUG says at its start where its runners write the debug log, and a bad value stops it naming the variable", async () => {
  fake.push({ text: "Logged." });
  const logged = await harness(["chat", "--local", "--session", "debugged", "log this"], { ...env(), HARNESS_DEBUG: "api" }, { cwd: project, stdin: "" }).result;
  assert.equal(logged.code, 0, logged.stderr);
  const named = /^harness: HARNESS_DEBUG=api: the runners' debug log is in (\/\S+\/runners\/me)\/runner-<n>\.debug\.log\n/m.exec(logged.stderr);
  assert.ok(named, logged.stderr);
  assert.ok(named[1]!.startsWith(join(home, ".harness", "projects")), named[1]);
  assert.match(readFileSync(join(named[1]!, "runner-0.debug.log"), "utf8"), /^\S+ \[me\/debugged\] \[DEBUG\] \[api\] request model=/m);

  const asked = fake.requests.length;
  const bad = await harness(["chat", "--local", "hello?"], { ...env(), HARNESS_DEBUG: "api,!mcp" }, { cwd: project, stdin: "" }).result;
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'harness: HARNESS_DEBUG: the filter "api,!mcp" mixes categories to show and to hide ("!"): give one kind, as "api,hooks" or "!mcp" (or 1 for all)\n');
  assert.equal(fake.requests.length, asked);
});

test("a local chat, as it starts, deletes the images it kept in the project more than 30 days ago, and no other file", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-local-images-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kept = join(dir, ".harness", "images");
  mkdirSync(kept, { recursive: true });
  const longAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
  const lately = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
  for (const [name, when] of [["image-20250101-120000-0a1b2c.png", longAgo], ["image-20251120-120000-3d4e5f.png", lately], ["diagram.png", longAgo]] as const) {
    writeFileSync(join(kept, name), "png");
    utimesSync(join(kept, name), when, when);
  }
  fake.push({ text: "Hello." });
  const chat = await localChat(["hi"], "", dir);
  assert.equal(chat.code, 0, chat.stderr);
  assert.deepEqual(readdirSync(kept).sort(), ["diagram.png", "image-20251120-120000-3d4e5f.png"]);
});

test("a local chat's server log beside its sessions has a timestamped line each, at info and above, a failed run's escapes shown, not played", async () => {
  fake.push({ kind: "http-error", status: 400, message: "no such tool\u001b[2J\u001b]0;owned\u0007\nat all" });
  const failed = await localChat(["--session", "logged", "fail please"], "");
  assert.match(failed.stderr, /no such tool/);
  const lines = readFileSync(join(projectDataDir(projectPath(project), home), "server.log"), "utf8").split("\n").slice(0, -1);
  for (const line of lines) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S/, line);
  assert.ok(lines.some((line) => / Harness listening on http:\/\/127\.0\.0\.1:\d+$/.test(line)), lines.join("\n"));
  assert.ok(lines.some((line) => / client connected to me\/logged from 127\.0\.0\.1$/.test(line)), lines.join("\n"));
  assert.ok(!lines.some((line) => / GET \/ws\?/.test(line)), "no handshake: those are debug lines");
  const end = lines.find((line) => / session me\/logged: run failed: /.test(line));
  assert.ok(end, lines.join("\n"));
  assert.match(end, /no such tool\\x1b\[2J\\x1b\]0;owned\\x07 at all/);
  assert.doesNotMatch(lines.join("\n"), /[\u0000-\u0008\u000b-\u001f]/);
});

test("a local chat without a key says to export it, as harness run does: there is no server to restart", async () => {
  const before = fake.requests.length;
  const run = await harness(["chat", "--local", "hi"], { ...env(), ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "" }, { cwd: project, stdin: "" }).result;
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /ANTHROPIC_API_KEY is not set; export your Anthropic API key/);
  assert.doesNotMatch(run.stderr, /harness serve|restart the server/);
  assert.equal(fake.requests.length, before);
});

test("a local chat names the project's files as Claude Code does, relative to the project", async () => {
  fake.push(...toolThenText("Read", { file_path: join(project, "notes.txt") }, "Fridays."));
  const run = await localChat(["when?"], "");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /● Read\(notes\.txt\)\n/);
});
