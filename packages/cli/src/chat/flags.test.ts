// claude's session flags on a chat (harness chat --model…, harness --model … "<prompt>"): parsed
// into one configure, sent before the first prompt, shown; the flags only a run takes refused.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "../args.ts";
import { bin, chatServerForFile, harness, root, slowLink } from "../test-support.ts";

const server = chatServerForFile("harness-chat-flags-");
let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "harness-chat-flags-files-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("a chat's --max-turns that is not a whole number from 1 to the limit is refused as harness run's is", () => {
  for (const bad of ["0", "2.5", "many", "10001"]) {
    assert.deepEqual(parseArgs(["chat", "--max-turns", bad, "hi"]), { kind: "usage-error", message: `--max-turns must be a positive whole number up to 10000, got "${bad}"`, topic: "chat" });
  }
});

test("a chat takes claude's session flags as one configure; the top level opens a chat with them", () => {
  assert.deepEqual(parseArgs(["chat", "--model", "claude-opus-4-5", "--permission-mode", "bypassPermissions", "--effort", "max", "--max-turns", "3", "hi"]), {
    kind: "chat",
    prompt: "hi",
    config: { model: "claude-opus-4-5", permissionMode: "fullAuto", effort: "max", maxTurns: 3 },
  });
  assert.deepEqual(parseArgs(["--model", "opus", "hi"]), { kind: "chat", local: true, prompt: "hi", config: { model: "opus" } });
  assert.deepEqual(parseArgs(["--dangerously-skip-permissions", "-c"]), { kind: "chat", local: true, continue: true, config: { permissionMode: "fullAuto" } });
  assert.deepEqual(parseArgs(["chat", "--system-prompt-file", "p.md"]), { kind: "chat", systemPromptFile: "p.md" });
  assert.deepEqual(parseArgs(["chat", "--effort", "xhigh"]).kind === "chat" && parseArgs(["chat", "--effort", "xhigh"]), {
    kind: "chat",
    config: { effort: "high" },
    notes: ["--effort xhigh: the models here take low, medium, high or max; running at high, the highest level below xhigh (as claude does on models without xhigh)"],
  });
});

test("plan (on a shared server), dontAsk and the flags only a run takes are refused in one line saying what to use", () => {
  const plan = parseArgs(["chat", "--permission-mode", "plan"]);
  assert.equal(plan.kind, "usage-error");
  assert.match(plan.kind === "usage-error" ? plan.message : "", /^--permission-mode plan: a chat on a shared server has no plan mode .*harness chat --local --permission-mode plan .*harness run --permission-mode plan/);
  const dontAsk = parseArgs(["--permission-mode", "dontAsk", "hi"]);
  assert.match(dontAsk.kind === "usage-error" ? dontAsk.message : "", /^--permission-mode dontAsk cannot be set on a chat's session.*harness run/);
  for (const argv of [["chat", "--fallback-model", "haiku", "hi"], ["--agent", "reviewer", "hi"], ["hi", "--json-schema", "{}"]]) {
    const refused = parseArgs(argv);
    assert.equal(refused.kind, "usage-error", argv.join(" "));
    assert.match(refused.kind === "usage-error" ? refused.message : "", /^--(fallback-model|agent|json-schema) is not one a chat can take .*harness run takes it/);
  }
  assert.deepEqual(parseArgs(["chat", "--system-prompt", "a", "--system-prompt-file", "b"]), { kind: "usage-error", message: "--system-prompt and --system-prompt-file cannot go together: give one of them", topic: "chat" });
});

test("the debug log's flags are a run's: harness --debug and harness chat --debug name harness run", () => {
  const debugFlags: Array<[string[], string]> = [
    [["--debug", "hi"], "--debug"],
    [["--debug=api", "hi"], "--debug"],
    [["-d", "hi"], "-d"],
    [["chat", "--debug"], "--debug"],
    [["chat", "--url", "http://h", "--debug", "api", "hi"], "--debug"],
    [["chat", "--debug-file", "log.txt"], "--debug-file"],
    [["hi", "--debug-to-stderr"], "--debug-to-stderr"],
  ];
  for (const [argv, flag] of debugFlags) {
    const refused = parseArgs(argv);
    assert.equal(refused.kind, "usage-error", argv.join(" "));
    assert.ok(refused.kind === "usage-error" && refused.message.startsWith(`${flag} is not one a chat can take `) && refused.message.includes(`harness run ${flag} …`), `${argv.join(" ")}: ${JSON.stringify(refused)}`);
  }
});

test("the chat's first run goes with the model, system prompt and effort its flags set, and the chat says so", async () => {
  const promptFile = join(dir, "system.md");
  writeFileSync(promptFile, "You are a pirate.");
  server.fake.push({ text: "Arr." });
  const before = server.fake.requests.length;
  const { result } = harness(["chat", "--url", server.url, "--session", "flags-1", "--model", "claude-opus-4-5", "--system-prompt-file", promptFile, "--effort", "low", "--dangerously-skip-permissions", "hi"], { HARNESS_USER: "tester" }, { stdin: "" });
  const chat = await result;
  assert.equal(chat.code, 0, chat.stderr);
  assert.equal(chat.stdout, "Arr.\n");
  const request = server.fake.requests.slice(before).find((r) => JSON.stringify(r.body.messages).includes("hi"))!;
  assert.equal(request.body.model, "claude-opus-4-5");
  assert.match(JSON.stringify(request.body.system), /You are a pirate\./);
  assert.match(chat.stderr, /\(settings of session flags-1: model claude-opus-4-5, permission mode fullAuto, effort low, system prompt from .*system\.md\)\n/);
});

test("a model the server cannot use, or a system prompt file that is not there, stops the chat before any prompt", async () => {
  const before = server.fake.requests.length;
  const badModel = await harness(["chat", "--url", server.url, "--session", "flags-2", "--model", "nosuch/model", "hi"], { HARNESS_USER: "tester" }, { stdin: "" }).result;
  assert.equal(badModel.code, 1, badModel.stderr);
  assert.match(badModel.stderr, /harness: --model: .*nosuch\/model/);
  const missing = await harness(["chat", "--url", server.url, "--system-prompt-file", join(dir, "absent.md"), "hi"], { HARNESS_USER: "tester" }, { stdin: "" }).result;
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /^harness: --system-prompt-file: cannot read .*absent\.md/);
  assert.equal(server.fake.requests.length, before, "no prompt went");
});

test("a flag only a run takes is one line naming it and harness run, exit 2", async () => {
  const { code, stderr } = await harness(["--max-budget-usd", "1", "fix it"], {}).result;
  assert.equal(code, 2);
  assert.match(stderr, /^harness: --max-budget-usd is not one a chat can take .*harness run takes it/);
  assert.equal(stderr.trim().split("\n").length, 1);
  const debug = await harness(["chat", "--debug"], {}).result;
  assert.equal(debug.code, 2);
  assert.match(debug.stderr, /^harness: --debug is not one a chat can take .*harness run takes it, as harness run --debug …/);
});

test("--resume with no id, not at a terminal: the sessions, newest first with title and age, and a line to pass an id, exit 2", async () => {
  server.fake.push({ text: "One." }, { text: "Two." });
  for (const [session, prompt] of [["pick-old", "the older prompt"], ["pick-new", "the newer prompt"]]) {
    const made = await harness(["chat", "--url", server.url, "--user", "picker", "--session", session, prompt], {}, { stdin: "" }).result;
    assert.equal(made.code, 0, made.stderr);
  }
  const { code, stdout, stderr } = await harness(["chat", "--url", server.url, "--user", "picker", "--resume"], {}, { stdin: "" }).result;
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.match(stderr, /^Sessions of picker, the most recent first:\n {2}1 {2}the newer prompt {2}· {2}just now {2}· {2}pick-new\n {2}2 {2}the older prompt {2}· {2}just now {2}· {2}pick-old\n/);
  assert.match(stderr, /\nharness: --resume: not at a terminal, nobody can pick: pass the id, as harness chat --resume pick-new\n$/);
  const none = await harness(["chat", "--url", server.url, "--user", "nobody-here", "-r"], {}, { stdin: "" }).result;
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^harness: --resume: there is no session to resume yet; harness chat "<prompt>" starts one\n$/);
});

test("--resume with no id at a terminal: the user picks a session by its number and the chat goes on in it, the sessions listed once", async (t) => {
  server.fake.push({ text: "First answer." }, { text: "Second answer." });
  const made = await harness(["chat", "--url", server.url, "--user", "ptypick", "--session", "picked-one", "remember the word heron"], {}, { stdin: "" }).result;
  assert.equal(made.code, 0, made.stderr);
  let sent = "";
  const link = await slowLink(t, server.url, 0, (data) => (sent += data));
  const line = `stty cols 100 rows 24; exec bash ${JSON.stringify(bin)} chat --url ${link} --user ptypick --resume`;
  const child = spawn("script", ["-qfec", line, "/dev/null"], { cwd: root, env: { ...process.env, NO_COLOR: "1", TERM: "xterm" }, stdio: ["pipe", "pipe", "pipe"] });
  t.after(() => child.kill("SIGKILL"));
  let screen = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (screen += d));
  const sees = async (pattern: RegExp) => {
    for (let waited = 0; !pattern.test(screen); waited += 20) {
      if (waited > 20_000) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await sees(/Resume which\? \(1-1, Enter for none\)/);
  assert.match(screen, /1 {2}remember the word heron {2}· {2}just now {2}· {2}picked-one/);
  child.stdin.write("1\r");
  await sees(/session picked-one of ptypick/);
  await sees(/First answer\./);
  await sees(/Ctrl\+D leaves/);
  child.stdin.write("and now?\r");
  await sees(/Second answer\./);
  child.stdin.write("\x04");
  const [code] = await once(child, "close");
  assert.equal(code, 0);
  assert.equal(sent.match(/^GET \/sessions\?/gm)?.length, 1, "the list the user picked from is the only one asked for");
});

test("the turn limit the flags take is the wire protocol's", async () => {
  const { MAX_TURNS_LIMIT } = await import("@harness/protocol");
  const { MAX_TURNS } = await import("../parse-integer.ts");
  assert.equal(MAX_TURNS, MAX_TURNS_LIMIT);
});
