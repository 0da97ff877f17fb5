import { test } from "node:test";
import assert from "node:assert/strict";
import { parseArgs } from "./args.ts";
import { helpText } from "./usage.ts";

test("run takes a prompt and its options in any order, with --opt=value too", () => {
  assert.deepEqual(parseArgs(["run", "--cwd", "/tmp", "fix", "the bug", "--max-turns=3", "-m", "claude-x"]), {
    kind: "run",
    prompt: "fix the bug",
    cwd: "/tmp",
    maxTurns: 3,
    model: "claude-x",
  });
  assert.deepEqual(parseArgs(["run", "--", "--not-a-flag"]), { kind: "run", prompt: "--not-a-flag" });
});

test("--permission-mode takes Claude Code's modes, dontAsk among them as it is", () => {
  assert.deepEqual(parseArgs(["run", "--permission-mode", "acceptEdits", "hi"]), { kind: "run", prompt: "hi", permissionMode: "acceptEdits" });
  assert.deepEqual(parseArgs(["run", "--permission-mode", "dontAsk", "hi"]), { kind: "run", prompt: "hi", permissionMode: "dontAsk" });
  assert.match(JSON.stringify(parseArgs(["run", "--permission-mode", "yolo", "hi"])), /must be one of default, acceptEdits, plan, bypassPermissions, dontAsk/);
});

test("run without a prompt, or with -, leaves the prompt to standard input", () => {
  for (const argv of [["run"], ["run", "   "], ["run", "-"], ["run", "--cwd", "x", "-"]]) {
    const parsed = parseArgs(argv);
    assert.equal(parsed.kind === "run" && parsed.prompt, "", argv.join(" "));
  }
});

test("bad run usage names the problem and points at run's help", () => {
  const cases: [string[], string][] = [
    [["run", "--frob", "hi"], 'unknown option "--frob" for "harness run"'],
    [["run", "hi", "--cwd"], "--cwd needs a value"],
    [["run", "hi", "--max-turns", "0"], '--max-turns must be a positive whole number up to 10000, got "0"'],
    [["run", "hi", "--max-turns", "2.5"], '--max-turns must be a positive whole number up to 10000, got "2.5"'],
    [["run", "hi", "--help=yes"], "--help takes no value"],
    [["run", "--model", "--max-turns", "3", "hi"], "--model needs a value, not the option --max-turns"],
    [["run", "-m", "  ", "hi"], "-m needs a value"],
  ];
  for (const [argv, message] of cases) assert.deepEqual(parseArgs(argv), { kind: "usage-error", message, topic: "run" }, argv.join(" "));
});

test("serve options, help and version", () => {
  assert.deepEqual(parseArgs(["serve", "-p", "0", "--host", "::1", "--data-dir", "d"]), { kind: "serve", port: 0, host: "::1", dataDir: "d" });
  assert.deepEqual(parseArgs(["serve", "--project", "."]), { kind: "serve", projectDir: "." });
  assert.deepEqual(parseArgs(["serve", "--port", "70000"]), {
    kind: "usage-error",
    message: '--port must be a whole number up to 65535, got "70000"',
    topic: "serve",
  });
  assert.deepEqual(parseArgs(["serve", "--debug"]), { kind: "serve", debug: "" });
  assert.deepEqual(parseArgs(["serve", "--debug", "mcp", "-p", "0"]), { kind: "serve", debug: "mcp", port: 0 });
  assert.deepEqual(parseArgs(["serve", "-d", "--port", "0"]), { kind: "serve", debug: "", port: 0 });
  assert.deepEqual(parseArgs(["serve", "--debug=!api,!hooks"]), { kind: "serve", debug: "!api,!hooks" });
  assert.deepEqual(parseArgs(["serve", "--debug", "mcp,!api"]), {
    kind: "usage-error",
    message: '--debug filter "mcp,!api" mixes categories to show and to hide ("!"): give one kind, as "api,hooks" or "!mcp"',
    topic: "serve",
  });
  assert.deepEqual(parseArgs(["serve", "now"]), { kind: "usage-error", message: 'unexpected argument "now" for "harness serve"', topic: "serve" });
  assert.deepEqual(parseArgs([]), { kind: "help" });
  assert.deepEqual(parseArgs(["--help"]), { kind: "help" });
  assert.deepEqual(parseArgs(["help", "run"]), { kind: "help", topic: "run" });
  assert.deepEqual(parseArgs(["help", "run", "extra"]), { kind: "usage-error", message: 'unexpected argument "extra" for "harness help"' });
  assert.deepEqual(parseArgs(["--version", "extra"]), { kind: "usage-error", message: 'unexpected argument "extra" for "harness --version"' });
  assert.deepEqual(parseArgs(["run", "--cwd", "-odd-dir", "hi"]), { kind: "run", prompt: "hi", cwd: "-odd-dir" });
  assert.deepEqual(parseArgs(["run", "-h"]), { kind: "help", topic: "run" });
  assert.deepEqual(parseArgs(["--version"]), { kind: "version" });
  assert.equal((parseArgs(["deploy"]) as { message: string }).message.split(";")[0], 'unknown command "deploy"');
  assert.deepEqual(parseArgs(["--frob"]), { kind: "usage-error", message: 'unknown option "--frob"' });
});

test("chat options and usage errors", () => {
  assert.deepEqual(parseArgs(["chat"]), { kind: "chat" });
  assert.deepEqual(parseArgs(["chat", "-c", "--local", "--cwd", "p"]), { kind: "chat", continue: true, local: true, cwd: "p" });
  assert.deepEqual(parseArgs(["chat", "--url", "http://h:1", "--user=ann", "--session", "s1", "fix", "it"]), { kind: "chat", url: "http://h:1", userId: "ann", sessionId: "s1", prompt: "fix it" });
  assert.deepEqual(parseArgs(["chat", "-h"]), { kind: "help", topic: "chat" });
  assert.deepEqual(parseArgs(["help", "chat"]), { kind: "help", topic: "chat" });
  assert.deepEqual(parseArgs(["chat", "--port", "1"]), { kind: "usage-error", message: 'unknown option "--port" for "harness chat"', topic: "chat" });
  assert.deepEqual(parseArgs(["chat", "--session"]), { kind: "usage-error", message: "--session needs a value", topic: "chat" });
  assert.deepEqual(parseArgs(["chat", "-r", "s1", "go on"]), { kind: "chat", sessionId: "s1", existing: true, prompt: "go on" });
  assert.deepEqual(parseArgs(["chat", "--resume"]), { kind: "chat", pick: true }, "--resume alone lists the sessions to pick from");
  assert.deepEqual(parseArgs(["chat", "-r", "--url", "http://h"]), { kind: "chat", pick: true, url: "http://h" });
  assert.deepEqual(parseArgs(["chat", "-r", "-c"]), { kind: "usage-error", message: "--continue and --resume each name the session: give one of them", topic: "chat" });
  assert.deepEqual(parseArgs(["chat", "-r", "s1", "-c"]), { kind: "usage-error", message: "--continue and --resume each name the session: give one of them", topic: "chat" });
  assert.deepEqual(parseArgs(["chat", "--session", "s1", "--fork-session"]), { kind: "chat", sessionId: "s1", forkSession: true });
  assert.deepEqual(parseArgs(["chat", "-c", "--fork-session"]), { kind: "chat", continue: true, forkSession: true });
});

test("chat's -r/--resume takes its id as --resume=ID or as the next word; alone, or before an option or --, it lists the sessions to pick from", () => {
  const chat = (...args: string[]) => parseArgs(["chat", ...args]);
  assert.deepEqual(chat("-r", "s1"), { kind: "chat", sessionId: "s1", existing: true });
  assert.deepEqual(chat("--resume=s1", "go on"), { kind: "chat", sessionId: "s1", existing: true, prompt: "go on" });
  assert.deepEqual(chat("--url", "http://h", "-r"), { kind: "chat", url: "http://h", pick: true });
  assert.deepEqual(chat("--resume", "--verbose", "go on"), { kind: "chat", pick: true, verbose: true, prompt: "go on" });
  assert.deepEqual(chat("-r", "--", "-go on"), { kind: "chat", pick: true, prompt: "-go on" });
  // Before an option only a run takes, -r is still the picker's, and that option is the problem.
  assert.match((chat("-r", "--agent", "x") as { message: string }).message, /^--agent is not one a chat can take/);
  assert.match((chat("-r", "s1", "--agent", "x") as { message: string }).message, /^--agent is not one a chat can take/);
  assert.deepEqual(chat("--resume="), {
    kind: "usage-error",
    message: "--resume= names no session: give its id (--resume ID), or --resume alone to pick one from a list",
    topic: "chat",
  });
  assert.deepEqual(chat("-r", "--session", "s1"), { kind: "usage-error", message: "--resume and --session each name the session: give one of them", topic: "chat" });
  assert.deepEqual(chat("--resume=s1", "--session", "s2"), { kind: "usage-error", message: "--resume and --session each name the session: give one of them", topic: "chat" });
});

test("run's -r/--resume needs its id however it is left out", () => {
  const needs = `--resume needs the id of a conversation: harness run --resume ID "<prompt>" (-c goes on with the last one)`;
  for (const argv of [["run", "-r"], ["run", "--resume="], ["run", "-r", "--verbose", "go on"], ["run", "go on", "--resume", "--", "x"]]) {
    assert.deepEqual(parseArgs(argv), { kind: "usage-error", message: needs, topic: "run" }, argv.join(" "));
  }
  assert.deepEqual(parseArgs(["run", "--resume=abc", "go on"]), { kind: "run", prompt: "go on", resume: "abc" });
});

test("--allowedTools and --disallowedTools take rules separated by commas or spaces outside parentheses, and may repeat", () => {
  assert.deepEqual(parseArgs(["run", "--allowedTools", "Read, Bash(git log:*),Bash(npm run test -- --grep a,b)", "--allowed-tools=Grep", "go"]), {
    kind: "run",
    prompt: "go",
    allowedTools: ["Read", "Bash(git log:*)", "Bash(npm run test -- --grep a,b)", "Grep"],
  });
  assert.deepEqual(parseArgs(["run", "--disallowedTools", "Bash(git push:*) WebFetch", "go"]), { kind: "run", prompt: "go", disallowedTools: ["Bash(git push:*)", "WebFetch"] });
});

test("--plugin-dir may repeat; its directories are kept in order", () => {
  assert.deepEqual(parseArgs(["run", "--plugin-dir", "./a", "--plugin-dir=/b", "go"]), { kind: "run", prompt: "go", pluginDirs: ["./a", "/b"] });
  assert.deepEqual(parseArgs(["run", "--plugin-dir"]), { kind: "usage-error", message: "--plugin-dir needs a value", topic: "run" });
});

test("a rule that cannot be one is bad usage, naming the flag and the problem", () => {
  assert.deepEqual(parseArgs(["run", "--allowedTools", "Read,bash", "go"]), {
    kind: "usage-error",
    message: '--allowedTools: "bash" is not a tool name: tool names start with an uppercase letter (Bash, Read, Edit, WebFetch …) or with mcp__',
    topic: "run",
  });
  assert.deepEqual(parseArgs(["run", "--disallowedTools", "Bash(git push", "go"]), { kind: "usage-error", message: '--disallowedTools: rule "Bash(git push" has no closing parenthesis', topic: "run" });
  assert.deepEqual(parseArgs(["run", "--allowedTools", " , ", "go"]), { kind: "usage-error", message: '--allowedTools needs at least one rule, such as Read or "Bash(npm test:*)"', topic: "run" });
});

test("--system-prompt and --append-system-prompt take the text as it is", () => {
  assert.deepEqual(parseArgs(["run", "--system-prompt", "You review code.", "--append-system-prompt=Answer in French.", "go"]), {
    kind: "run",
    prompt: "go",
    systemPrompt: "You review code.",
    appendSystemPrompt: "Answer in French.",
  });
});

test("--continue (-c) and --resume (-r) ID: one or the other, and an id that cannot name a path", () => {
  assert.deepEqual(parseArgs(["run", "-c", "go on"]), { kind: "run", prompt: "go on", continue: true });
  assert.deepEqual(parseArgs(["run", "--resume", "0b6f-42_a", "go on"]), { kind: "run", prompt: "go on", resume: "0b6f-42_a" });
  assert.deepEqual(parseArgs(["run", "-c", "-r", "abc", "go on"]), { kind: "usage-error", message: "--continue and --resume cannot go together", topic: "run" });
  assert.deepEqual(parseArgs(["run", "--resume", "../../etc/passwd", "go on"]), {
    kind: "usage-error",
    message: `--resume takes the id of a conversation (a run's session_id in --output-format json, or a chat's chat-…), not "../../etc/passwd"`,
    topic: "run",
  });
});

test("--allowedTools Read Edit: the second rule would be taken for the prompt, so it is bad usage that says how to write it", () => {
  assert.deepEqual(parseArgs(["run", "--allowedTools", "Read", "Edit", "fix the bug"]), {
    kind: "usage-error",
    message: '--allowedTools takes its rules as one argument, separated by commas: --allowedTools "Read,Edit"',
    topic: "run",
  });
  assert.deepEqual(parseArgs(["run", "--allowedTools", "Read", "fix the bug"]), { kind: "run", prompt: "fix the bug", allowedTools: ["Read"] });
  // A one-word prompt that is not a tool's name is the prompt.
  assert.deepEqual(parseArgs(["run", "-c", "--allowedTools", "Bash", "Continue"]), { kind: "run", prompt: "Continue", continue: true, allowedTools: ["Bash"] });
  assert.equal(parseArgs(["run", "--allowedTools", "Read", "Bash(git log:*)", "go"]).kind, "usage-error");
});

test("a claude -p command line runs as it is: -p, --print and --verbose are taken, --dangerously-skip-permissions is bypassPermissions", () => {
  assert.deepEqual(parseArgs(["run", "-p", "--verbose", "--output-format", "stream-json", "hi"]), { kind: "run", prompt: "hi", outputFormat: "stream-json", verbose: true });
  assert.deepEqual(parseArgs(["run", "--print", "hi"]), { kind: "run", prompt: "hi" });
  assert.deepEqual(parseArgs(["run", "--dangerously-skip-permissions", "hi"]), { kind: "run", prompt: "hi", permissionMode: "bypassPermissions" });
  assert.deepEqual(parseArgs(["run", "--dangerously-skip-permissions", "--permission-mode", "bypassPermissions", "hi"]), { kind: "run", prompt: "hi", permissionMode: "bypassPermissions" });
  assert.deepEqual(parseArgs(["run", "--dangerously-skip-permissions", "--permission-mode", "plan", "hi"]), {
    kind: "usage-error",
    message: "--dangerously-skip-permissions and --permission-mode plan cannot go together",
    topic: "run",
  });
  assert.deepEqual(parseArgs(["run", "--verbose=yes", "hi"]), { kind: "usage-error", message: "--verbose takes no value", topic: "run" });
});

test("a prompt that starts with - is bad usage that says to put it after --", () => {
  assert.deepEqual(parseArgs(["run", "- fix the typo in README"]), {
    kind: "usage-error",
    message: 'unknown option "- fix the typo in README" for "harness run"; a prompt that starts with "-" goes after --: harness run -- "- fix the typo in README"',
    topic: "run",
  });
  assert.deepEqual(parseArgs(["run", "--", "- fix the typo in README"]), { kind: "run", prompt: "- fix the typo in README" });
});

test("run's help says what --allow-dangerously-skip-permissions allows: a switch to bypassPermissions by a control request or by an approval", () => {
  const entry = helpText("run").split("--allow-dangerously-skip-permissions\n")[1]!.split(/\n  -/)[0]!;
  assert.match(entry, /set_permission_mode/);
  assert.match(entry, /approval/);
  assert.match(entry, /disableBypassPermissionsMode/);
});

test("every line of the help fits a terminal of 100 columns, so none wraps into the column of the next", () => {
  for (const topic of [undefined, "run", "serve", "chat", "mcp", "plugin", "doctor"] as const) {
    for (const line of helpText(topic).split("\n")) assert.ok([...line].length <= 100, `harness help ${topic ?? ""}: ${[...line].length} columns: ${line}`);
  }
});
