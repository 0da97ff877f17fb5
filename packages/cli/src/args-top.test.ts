// The top level takes what `claude` users type: -p for a run, a prompt or -c for a chat here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseArgs } from "./args.ts";

test("harness -p / --print is harness run, with every run flag", () => {
  assert.deepEqual(parseArgs(["-p", "hi"]), { kind: "run", prompt: "hi" });
  assert.deepEqual(parseArgs(["--print", "--model", "m", "fix it"]), { kind: "run", prompt: "fix it", model: "m" });
  assert.deepEqual(parseArgs(["--output-format", "json", "-p", "hi"]), { kind: "run", prompt: "hi", outputFormat: "json" });
  assert.deepEqual(parseArgs(["-p", "-c", "more"]), { kind: "run", prompt: "more", continue: true });
  assert.deepEqual(parseArgs(["-p", "--frob"]), { kind: "usage-error", message: 'unknown option "--frob" for "harness run"', topic: "run" });
});

test("harness -c / --resume ID / a prompt open a chat on this project, as harness chat --local", () => {
  assert.deepEqual(parseArgs(["-c"]), { kind: "chat", local: true, continue: true });
  assert.deepEqual(parseArgs(["--continue"]), { kind: "chat", local: true, continue: true });
  assert.deepEqual(parseArgs(["--resume", "chat-1a2b"]), { kind: "chat", local: true, sessionId: "chat-1a2b", existing: true });
  assert.deepEqual(parseArgs(["-r", "chat-1a2b", "go on"]), { kind: "chat", local: true, sessionId: "chat-1a2b", prompt: "go on", existing: true });
  assert.deepEqual(parseArgs(["fix the bug"]), { kind: "chat", local: true, prompt: "fix the bug" });
  assert.deepEqual(parseArgs(["--resume", "chat-1a2b", "--fork-session"]), { kind: "chat", local: true, sessionId: "chat-1a2b", existing: true, forkSession: true });
  assert.deepEqual(parseArgs(["-c", "--fork-session"]), { kind: "chat", local: true, continue: true, forkSession: true });
  assert.deepEqual(parseArgs(["--fork-session"]), { kind: "usage-error", message: "--fork-session copies the session of --continue, --resume or --session: give one of them", topic: "chat" });
  assert.deepEqual(parseArgs(["fix", "the", "bug"]), { kind: "chat", local: true, prompt: "fix the bug" });
  assert.deepEqual(parseArgs(["fix the bug", "--cwd", "p"]), { kind: "chat", local: true, prompt: "fix the bug", cwd: "p" });
  assert.deepEqual(parseArgs(["--resume"]), { kind: "chat", local: true, pick: true }, "--resume alone lists the sessions to pick from");
  assert.deepEqual(parseArgs(["-r", "--model", "m"]), { kind: "chat", local: true, pick: true, config: { model: "m" } });
});

test("harness -r/--resume takes its id as harness chat does, and is named as --resume when it clashes", () => {
  assert.deepEqual(parseArgs(["--resume=chat-1a2b", "go on"]), { kind: "chat", local: true, sessionId: "chat-1a2b", existing: true, prompt: "go on" });
  assert.deepEqual(parseArgs(["--model", "m", "-r"]), { kind: "chat", local: true, pick: true, config: { model: "m" } });
  assert.deepEqual(parseArgs(["-r", "--", "-go on"]), { kind: "chat", local: true, pick: true, prompt: "-go on" });
  assert.deepEqual(parseArgs(["-r", "chat-1a2b", "-c"]), { kind: "usage-error", message: "--continue and --resume each name the session: give one of them", topic: "chat" });
  assert.deepEqual(parseArgs(["--resume", "chat-1a2b", "--session", "chat-3c4d"]), { kind: "usage-error", message: "--resume and --session each name the session: give one of them", topic: "chat" });
  assert.deepEqual(parseArgs(["--resume="]), {
    kind: "usage-error",
    message: "--resume= names no session: give its id (--resume ID), or --resume alone to pick one from a list",
    topic: "chat",
  });
});

test("one word that is no command is a typo until shown otherwise: it is refused, saying how a prompt is given", () => {
  assert.deepEqual(parseArgs(["deploy"]), {
    kind: "usage-error",
    message: 'unknown command "deploy"; to give a prompt: harness -p "deploy" (one run) or harness chat --local "deploy" (a chat)',
  });
  assert.deepEqual(parseArgs(["--frob"]), { kind: "usage-error", message: 'unknown option "--frob"' });
  assert.deepEqual(parseArgs([]), { kind: "help" });
});

test("claude's own commands that harness has none of say what to use instead; a prompt that starts with one of their words is still a prompt", () => {
  for (const [argv, said] of [
    [["config"], /^claude's "config" has no counterpart here: the settings are Claude Code's files \(\.claude\/settings\.json/],
    [["config", "set", "model", "opus"], /^claude's "config" has no counterpart here/],
    [["update"], /^claude's "update" has no counterpart here: harness updates with its repository \(git pull\)/],
    [["setup-token"], /^claude's "setup-token" has no counterpart here: there is no account to sign in to; the agent uses the API key in ANTHROPIC_API_KEY/],
  ] as const) {
    const parsed = parseArgs([...argv]);
    assert.equal(parsed.kind, "usage-error", argv.join(" "));
    assert.match((parsed as { message: string }).message, said);
  }
  assert.deepEqual(parseArgs(["update", "the", "readme"]), { kind: "chat", local: true, prompt: "update the readme" });
});

test("--debug in a chat names what a chat of its own takes instead: HARNESS_DEBUG", () => {
  for (const flag of ["--debug", "-d"]) {
    const parsed = parseArgs([flag]);
    assert.equal(parsed.kind, "usage-error");
    assert.match((parsed as { message: string }).message, new RegExp(`^${flag} is not one a chat can take .*; a chat of its own writes its runners' debug log with HARNESS_DEBUG=1 harness \\(or a filter: HARNESS_DEBUG=api,hooks\\)$`));
  }
});
