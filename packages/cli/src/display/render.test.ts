import { test } from "node:test";
import assert from "node:assert/strict";
import { createRenderer, describeToolCall, excerptOutput, type Sink } from "./render.ts";

function sink(isTTY = false): Sink & { text: string } {
  return {
    text: "",
    isTTY,
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

test("a tool call is named by its most telling argument, shortened to one line", () => {
  assert.equal(describeToolCall("Bash", { command: "echo hi", description: "say hi" }, "/w"), "Bash(echo hi)");
  assert.equal(describeToolCall("Read", { file_path: "/w/src/a.ts" }, "/w"), "Read(src/a.ts)");
  assert.equal(describeToolCall("Read", { file_path: "/elsewhere/a.ts" }, "/w"), "Read(/elsewhere/a.ts)");
  assert.equal(describeToolCall("Bash", { command: "a\n  b" }, "/w"), "Bash(a …)", "a multi-line command shows its first line");
  assert.equal(describeToolCall("Bash", { command: "for i in 1 2; do\n  echo $i\ndone" }, "/w"), "Bash(for i in 1 2; do …)");
  assert.equal(describeToolCall("Bash", { command: "x".repeat(100) }, "/w", 10), `Bash(${"x".repeat(9)}…)`);
  assert.equal(describeToolCall("Custom", { n: 1 }, "/w"), 'Custom({"n":1})');
  assert.equal(describeToolCall("Custom", {}, "/w"), "Custom");
});

test("tool output is cut to a few lines with a count of the rest", () => {
  assert.deepEqual(excerptOutput("a\nb\nc\nd\ne\n", 2, 80), ["a", "b", "… +3 lines"]);
  assert.deepEqual(excerptOutput("  \n", 2, 80), ["(no output)"]);
  assert.deepEqual(excerptOutput("abcdef", 2, 4), ["abc…"]);
});

test("a failed call's reason is shown whole however long its line; other output is cut to the width", () => {
  const reason = `Permission to use Bash was not granted: this run has no one to approve it (${"x".repeat(200)}): allow it with --allowedTools "Bash(touch:*)"`;
  const out = sink();
  const err = sink();
  const r = createRenderer(out, err, { color: false, cwd: "/w", width: 80 });
  r.event({ type: "tool.started", toolName: "Bash", toolUseId: "1", input: { command: "touch x" } });
  r.event({ type: "tool.completed", toolUseId: "1", output: reason, isError: true });
  r.event({ type: "tool.started", toolName: "Bash", toolUseId: "2", input: { command: "cat log" } });
  r.event({ type: "tool.completed", toolUseId: "2", output: "y".repeat(200), isError: false });
  assert.ok(err.text.includes(reason), err.text);
  assert.ok(err.text.includes(`${"y".repeat(79)}…`));
});

test("what tools print cannot drive the terminal, and cutting never splits a character", () => {
  assert.deepEqual(excerptOutput("normal\n\x1b]0;PWNED\x07\x1b[2J\x1b[Hhidden\rover\n", 4, 80), ["normal", "]0;PWNED[2J[Hhiddenover"]);
  assert.equal(describeToolCall("Bash", { command: "echo \x1b[31mred" }, "/w"), "Bash(echo [31mred)");
  assert.equal(describeToolCall("Bash\x1b]0;PWN\x07\x1b[2J", { command: "ls" }), "Bash]0;PWN[2J(ls)", "a tool name the model made up");
  assert.equal(describeToolCall("\x1b[2J", undefined), "[2J");
  assert.deepEqual(excerptOutput(`${"a".repeat(3)}😀😀😀`, 1, 6), ["aaa😀…"]);
  assert.equal(describeToolCall("Bash", { command: `echo ${"a".repeat(71)} 😀😀😀😀` }, "/w"), `Bash(echo ${"a".repeat(71)} 😀…)`);
});

test("lines are cut to the columns they take: wide characters take two, combining marks none", () => {
  assert.deepEqual(excerptOutput("中文字符测试中文字符测试", 1, 10), ["中文字符…"]);
  assert.deepEqual(excerptOutput("ｆｕｌｌ width", 1, 6), ["ｆｕ…"]);
  assert.deepEqual(excerptOutput("cafe\u0301 cafe\u0301", 1, 9), ["cafe\u0301 cafe\u0301"]);
  assert.deepEqual(excerptOutput("한국어 텍스트", 1, 13), ["한국어 텍스트"]);
});

test("reply text goes to stdout, tool activity to stderr, paragraphs kept apart", () => {
  const out = sink();
  const err = sink();
  const r = createRenderer(out, err, { color: false, cwd: "/w" });
  r.event({ type: "assistant.delta", text: "Let me " });
  r.event({ type: "assistant.delta", text: "look." });
  r.event({ type: "tool.started", toolName: "Bash", toolUseId: "1", input: { command: "ls" } });
  r.event({ type: "tool.started", toolName: "Bash", toolUseId: "2", input: { command: "false" } });
  r.event({ type: "tool.completed", toolUseId: "2", output: "exit code 1", isError: true });
  r.event({ type: "tool.completed", toolUseId: "1", output: "a\nb\n", isError: false });
  r.event({ type: "assistant.delta", text: "Done" });
  r.finish();
  assert.equal(out.text, "Let me look.\n\nDone\n");
  assert.equal(err.text, "● Bash(ls)\n● Bash(false)\n  ✗  exit code 1\n● Bash(ls)\n  ⎿  a\n     b\n");
});

test("on one terminal, a tool line never starts in the middle of the reply's line", () => {
  const out = sink(true);
  const err = sink(true);
  const r = createRenderer(out, err, { color: false, cwd: "/w" });
  r.event({ type: "assistant.delta", text: "Checking" });
  r.event({ type: "tool.started", toolName: "Bash", toolUseId: "1", input: { command: "ls" } });
  r.event({ type: "tool.completed", toolUseId: "1", output: "a", isError: false });
  r.event({ type: "assistant.delta", text: "Done" });
  r.finish();
  assert.equal(err.text, "\n● Bash(ls)\n  ⎿  a\n");
  assert.equal(out.text, "Checking\nDone\n");
});

test("a sub-agent's tool calls are nested and its text stays out of the reply", () => {
  const out = sink();
  const err = sink();
  const r = createRenderer(out, err, { color: false, cwd: "/w" });
  r.event({ type: "tool.started", toolName: "Task", toolUseId: "task", input: { description: "explore" } });
  r.event({ type: "assistant.delta", text: "sub-agent notes", agentId: "a1", parentToolUseId: "task" });
  r.event({ type: "tool.started", toolName: "Grep", toolUseId: "g", input: { pattern: "foo" }, agentId: "a1", parentToolUseId: "task" });
  r.event({ type: "tool.completed", toolUseId: "g", output: "a.ts", isError: false, agentId: "a1", parentToolUseId: "task" });
  r.event({ type: "tool.completed", toolUseId: "task", output: "found it", isError: false });
  r.event({ type: "assistant.delta", text: "Found." });
  r.finish();
  assert.equal(out.text, "Found.\n");
  assert.equal(err.text, "● Task(explore)\n    ● Grep(foo)\n      ⎿  a.ts\n● Task(explore)\n  ⎿  found it\n");
});

test("an MCP tool's progress lines are printed as they come, whole lines only, until its output is cut; other tools' output waits for the result", () => {
  const out = sink();
  const err = sink();
  const r = createRenderer(out, err, { color: false, cwd: "/w" });
  r.event({ type: "tool.started", toolName: "mcp__ci__build", toolUseId: "b", input: {} });
  r.event({ type: "tool.output", toolUseId: "b", text: "[1/3] compiling\n[2/3] li" });
  assert.equal(err.text, "● mcp__ci__build\n  ⎿  [1/3] compiling\n");
  r.event({ type: "tool.started", toolName: "Bash", toolUseId: "s", input: { command: "make" } });
  r.event({ type: "tool.output", toolUseId: "s", text: "cc main.c\n" });
  r.event({ type: "tool.output", toolUseId: "b", text: "nking\x1b[2J\n" });
  r.event({ type: "tool.output", toolUseId: "b", text: "[1/3] compiling\n... [9 characters of output omitted] ...\n\n[3/3] done\n", replace: true });
  r.event({ type: "tool.output", toolUseId: "b", text: "ignored\n" });
  r.event({ type: "tool.completed", toolUseId: "s", output: "cc main.c", isError: false });
  r.event({ type: "tool.completed", toolUseId: "b", output: "built", isError: false });
  assert.equal(err.text, "● mcp__ci__build\n  ⎿  [1/3] compiling\n● Bash(make)\n● mcp__ci__build\n     [2/3] linking[2J\n● Bash(make)\n  ⎿  cc main.c\n● mcp__ci__build\n  ⎿  built\n");

  const nested = sink();
  const sub = createRenderer(sink(), nested, { color: false, cwd: "/w" });
  sub.event({ type: "tool.started", toolName: "mcp__ci__build", toolUseId: "n", input: {}, agentId: "a1", parentToolUseId: "task" });
  sub.event({ type: "tool.output", toolUseId: "n", text: "[1/2]\n", agentId: "a1", parentToolUseId: "task" });
  assert.equal(nested.text, "    ● mcp__ci__build\n      ⎿  [1/2]\n");
});

test("notices go to stderr, marked by their level", () => {
  const out = sink();
  const err = sink();
  const r = createRenderer(out, err, { color: false, cwd: "/w" });
  r.event({ type: "notice", level: "warning", message: ".claude/settings.json is not valid JSON (line 1)" });
  r.event({ type: "notice", level: "error", message: "MCP server db failed to start" });
  r.event({ type: "notice", level: "info", message: "MCP server fs connected: 3 tools" });
  r.event({ type: "notice", level: "warning", message: "from a sub-agent", agentId: "a1" });
  r.finish();
  assert.equal(out.text, "");
  assert.equal(err.text, "! .claude/settings.json is not valid JSON (line 1)\n✗ MCP server db failed to start\n· MCP server fs connected: 3 tools\n    ! from a sub-agent\n");
});

test("an edit shows what it changed under an Update header, removed lines red and added green; a failed one its error", () => {
  const output = "Edited src/app.ts: replaced 1 occurrence. The changed region now reads:\n     1\tconst a = 1;\n     2\tconst b = 3;\n     3\tconst c = 4;\n     4\texport { a };";
  const run = (color: boolean) => {
    const err = sink();
    const r = createRenderer(sink(), err, { color, cwd: "/w" });
    r.event({ type: "tool.started", toolName: "Edit", toolUseId: "1", input: { file_path: "/w/src/app.ts", old_string: "const b = 2;", new_string: "const b = 3;\nconst c = 4;" } });
    r.event({ type: "tool.completed", toolUseId: "1", output, isError: false });
    r.event({ type: "tool.started", toolName: "Edit", toolUseId: "2", input: { file_path: "/w/src/app.ts", old_string: "nope", new_string: "yes" } });
    r.event({ type: "tool.completed", toolUseId: "2", output: "old_string was not found in src/app.ts.", isError: true });
    return err.text;
  };
  assert.equal(
    run(false),
    [
      "● Update(src/app.ts)",
      "  ⎿  Updated src/app.ts with 2 additions and 1 removal",
      "     1    const a = 1;",
      "     2 -  const b = 2;",
      "     2 +  const b = 3;",
      "     3 +  const c = 4;",
      "     4    export { a };",
      "● Update(src/app.ts)",
      "  ✗  old_string was not found in src/app.ts.",
      "",
    ].join("\n"),
  );
  const colored = run(true);
  assert.ok(colored.includes("\x1b[31m2 -  const b = 2;\x1b[0m") && colored.includes("\x1b[32m3 +  const c = 4;\x1b[0m"), JSON.stringify(colored));
});

test("a Write says how many lines it wrote; a sub-agent's edit is shown nested as its other calls are", () => {
  const err = sink();
  const r = createRenderer(sink(), err, { color: false, cwd: "/w" });
  r.event({ type: "tool.started", toolName: "Write", toolUseId: "1", input: { file_path: "/w/a.txt", content: "one\ntwo\n" } });
  r.event({ type: "tool.completed", toolUseId: "1", output: "Created a.txt (2 lines).", isError: false });
  r.event({ type: "tool.started", toolName: "Edit", toolUseId: "2", agentId: "s1", input: { file_path: "/w/a.txt", old_string: "one", new_string: "uno" } });
  r.event({ type: "tool.completed", toolUseId: "2", agentId: "s1", output: "Edited a.txt: replaced 1 occurrence.", isError: false });
  assert.equal(
    err.text,
    ["● Write(a.txt)", "  ⎿  Wrote 2 lines to a.txt", "     1    one", "     2    two", "    ● Update(a.txt)", "      ⎿  Updated a.txt with 1 addition and 1 removal", "         -  one", "         +  uno", ""].join("\n"),
  );
});

test("in colour a TodoWrite call's list dims and strikes through what is done and shows the item in progress in bold; a failed call shows its error", () => {
  const err = sink(true);
  const r = createRenderer(sink(true), err, { color: true, cwd: "/w" });
  const todos = [
    { content: "Write the parser", status: "completed", activeForm: "Writing the parser" },
    { content: "Test the parser", status: "in_progress", activeForm: "Testing the parser" },
  ];
  r.event({ type: "tool.started", toolName: "TodoWrite", toolUseId: "1", input: { todos } });
  r.event({ type: "tool.completed", toolUseId: "1", output: "Todos have been modified successfully.", isError: false });
  assert.equal(err.text, "\x1b[1m●\x1b[0m Update Todos\n  \x1b[2m⎿\x1b[0m  \x1b[2m☒ \x1b[9mWrite the parser\x1b[0m\x1b[0m\n     \x1b[1m☐ Test the parser\x1b[0m\n");
  err.text = "";
  r.event({ type: "tool.started", toolName: "TodoWrite", toolUseId: "2", input: { todos } });
  r.event({ type: "tool.completed", toolUseId: "2", output: "todos.0.activeForm: Required", isError: true });
  assert.match(err.text, /✗\x1b\[0m {2}\x1b\[31mtodos\.0\.activeForm: Required/);
});

test("thinking, when asked for, is dimmed on stderr before the reply and ended before a tool call; a sub-agent's is not shown", () => {
  const out = sink(true);
  const err = sink(true);
  const r = createRenderer(out, err, { color: true, cwd: "/w", thinking: true, shared: false });
  r.event({ type: "assistant.thinking", text: "Look at " });
  r.event({ type: "assistant.thinking", text: "the file." });
  r.event({ type: "assistant.thinking", text: "hidden", agentId: "a1", parentToolUseId: "t0" });
  r.event({ type: "tool.started", toolName: "Read", toolUseId: "t1", input: { file_path: "/w/a" } });
  assert.equal(err.text.split("\x1b[1m●")[0], "\x1b[2m✻ Thinking…\x1b[0m\n\x1b[2mLook at \x1b[0m\x1b[2mthe file.\x1b[0m\n\n");
  const quiet = sink();
  const q = createRenderer(sink(), quiet, { color: false, cwd: "/w" });
  q.event({ type: "assistant.thinking", text: "Look" });
  q.finish();
  assert.equal(quiet.text, "", "not asked for: nothing");
});
