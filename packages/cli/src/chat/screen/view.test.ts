import { test } from "node:test";
import assert from "node:assert/strict";
import type { HarnessState } from "@harness/protocol";
import { createChatView } from "./view.ts";

function capture() {
  let stdout = "";
  let stderr = "";
  const view = createChatView({ write: (t: string) => (stdout += t) }, { write: (t: string) => (stderr += t) }, { color: false });
  return { view, out: () => stdout, err: () => stderr };
}

const user = (id: string, content: string) => ({ id, role: "user" as const, content, status: "complete" as const });

test("a conversation followed through its states prints each thing once, also when a whole snapshot comes again", () => {
  const { view, out, err } = capture();
  view.typed("list files");
  const states: HarnessState[] = [
    { status: "running", messages: [user("u1", "list files"), { id: "a1", role: "assistant", content: "Let me ", status: "running" }] },
    {
      status: "running",
      messages: [
        user("u1", "list files"),
        { id: "a1", role: "assistant", content: "Let me look.", status: "running", toolCalls: [{ id: "t1", name: "Bash", status: "running" }] },
      ],
    },
    {
      status: "running",
      messages: [
        user("u1", "list files"),
        { id: "a1", role: "assistant", content: "Let me look.", status: "running", toolCalls: [{ id: "t1", name: "Bash", status: "running", input: { command: "ls" } }] },
      ],
    },
    {
      status: "idle",
      messages: [
        user("u1", "list files"),
        { id: "a1", role: "assistant", content: "Let me look. Two files.", status: "complete", toolCalls: [{ id: "t1", name: "Bash", status: "complete", input: { command: "ls" }, output: "a.ts\nb.ts\n" }] },
      ],
    },
  ];
  for (const state of states) view.show(state);
  view.show(structuredClone(states.at(-1)!));
  assert.equal(out(), "Let me look. Two files.\n");
  assert.equal(err(), "● Bash(ls)\n  ⎿  a.ts\n     b.ts\n");
});

test("history from elsewhere, approvals, a cancelled reply and an error are each shown", () => {
  const { view, err } = capture();
  view.show({
    status: "awaiting-approval",
    messages: [user("u1", "deploy"), { id: "a1", role: "assistant", content: "", status: "running", toolCalls: [{ id: "t1", name: "Bash", status: "awaiting-approval", input: { command: "make deploy" } }, { id: "t2", name: "Write", status: "awaiting-approval", input: { file_path: "/w/x" } }] }],
    pendingApprovals: [
      { toolCallId: "t1", toolName: "Bash", description: "make deploy" },
      { toolCallId: "t2", toolName: "Write", description: "write /w/x" },
    ],
  });
  view.show({ status: "error", error: "The run failed: boom", messages: [user("u1", "deploy"), { id: "a1", role: "assistant", content: "", status: "cancelled", toolCalls: [{ id: "t1", name: "Bash", status: "denied", input: { command: "make deploy" } }] }] });
  assert.equal(
    err(),
    [
      "› deploy",
      "● Bash(make deploy)",
      "● Write(/w/x)",
      "? Bash needs approval: make deploy — /approve 1 to allow, /deny 1 [reason] to deny (y / n answer the oldest first)",
      "? Write needs approval: write /w/x — /approve 2 to allow, /deny 2 [reason] to deny (y / n answer the oldest first)",
      "● Bash(make deploy)",
      "  ✗  denied",
      "(cancelled)",
      "✗ The run failed: boom",
      "",
    ].join("\n"),
  );
});

test("calls made together that end apart each have their output under their own header", () => {
  const { view, err } = capture();
  const call = (id: string, command: string, status: "awaiting-approval" | "complete" | "denied", output?: string) => ({ id, name: "Bash", status, input: { command }, ...(output && { output }) });
  const asking = (...calls: ReturnType<typeof call>[]): HarnessState => ({
    status: "awaiting-approval",
    messages: [user("u1", "make two"), { id: "a1", role: "assistant", content: "", status: "running", toolCalls: calls }],
    pendingApprovals: calls.filter((c) => c.status === "awaiting-approval").map((c) => ({ toolCallId: c.id, toolName: "Bash", description: c.input.command })),
  });
  view.show(asking(call("t1", "touch a", "awaiting-approval"), call("t2", "touch b", "awaiting-approval")));
  view.show(asking(call("t1", "touch a", "awaiting-approval"), call("t2", "touch b", "complete", "made b")));
  view.show(asking(call("t1", "touch a", "denied"), call("t2", "touch b", "complete", "made b")));
  assert.equal(
    err(),
    [
      "› make two",
      "● Bash(touch a)",
      "● Bash(touch b)",
      "? Bash needs approval: touch a — /approve 1 to allow, /deny 1 [reason] to deny (y / n answer the oldest first)",
      "? Bash needs approval: touch b — /approve 2 to allow, /deny 2 [reason] to deny (y / n answer the oldest first)",
      "  ⎿  made b",
      "● Bash(touch a)",
      "  ✗  denied",
      "",
    ].join("\n"),
  );
});

test("a call asked for while others wait is numbered after them, as /approve takes it", () => {
  const { view, err } = capture();
  const asking = (...ids: string[]): HarnessState => ({
    status: "awaiting-approval",
    messages: [user("u1", "go")],
    pendingApprovals: ids.map((id) => ({ toolCallId: id, toolName: "Bash", description: `touch ${id}` })),
  });
  view.show(asking("a", "b"));
  view.show(asking("b"));
  view.show(asking("b", "c"));
  assert.match(err(), /\? Bash needs approval: touch c — \/approve 3 to allow, \/deny 3 \[reason\] to deny \(y \/ n answer the oldest first\)\n$/);
});

test("escape sequences in a reply, a run's error or a server's message never reach the terminal", () => {
  const { view, out, err } = capture();
  const content = "Here:\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07 done\r\n\tend";
  const messages = [user("u1", "show it"), { id: "a1", role: "assistant" as const, content, status: "complete" as const }];
  view.show({ status: "idle", messages });
  assert.equal(out(), "Here:[2J]52;c;cm0gLXJmIH4= done\n\tend\n");
  view.show({ status: "error", error: "model said \x1b[2Jno", messages });
  view.note("✗ steer \"\x1b[Ahi\" was not delivered", "error");
  const evil = "Bash\x1b[2J";
  const call = { id: "t1", name: evil, status: "awaiting-approval" as const, input: { command: "ls" } };
  view.show({ status: "awaiting-approval", messages: [...messages, { id: "a2", role: "assistant", content: "", status: "running", toolCalls: [call] }], pendingApprovals: [{ toolCallId: "t1", toolName: evil, description: "ls" }] });
  assert.equal(err(), "› show it\n✗ model said [2Jno\n✗ steer \"[Ahi\" was not delivered\n● Bash[2J(ls)\n? Bash[2J needs approval: ls — y to allow, n [reason] to deny\n");
});

test("a rewind says where the conversation goes on from; what follows is shown", () => {
  const { view, err, out } = capture();
  const reply = (id: string, content: string) => ({ id, role: "assistant" as const, content, status: "complete" as const });
  const history = [user("u1", "write one"), reply("a1", "one"), user("u2", "write two"), reply("a2", "two")];
  view.show({ status: "idle", messages: history });
  view.show({ status: "idle", messages: history.slice(0, 2) });
  view.show({ status: "idle", messages: [...history.slice(0, 2), user("u3", "write three"), reply("a3", "three")] });
  assert.equal(err(), "› write one\n› write two\n(rewound: the conversation goes on from before › write two)\n› write three\n");
  assert.equal(out(), "one\ntwo\nthree");
});

test("at a narrow terminal, a tool's lines are cut to its width, as it is when they are printed", () => {
  let stderr = "";
  const terminal = { isTTY: true, columns: 28, write: (t: string) => (stderr += t) };
  const view = createChatView({ write: () => true }, terminal, { color: false });
  const call = (id: string, status: "running" | "complete") => ({ id, name: "Bash", status, input: { command: `seq -s ' ' 1 100 # ${id}` }, output: "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20" });
  view.show({ status: "running", messages: [user("u1", "count"), { id: "a1", role: "assistant", content: "", status: "running", toolCalls: [call("t1", "complete")] }] });
  terminal.columns = 40;
  view.show({ status: "running", messages: [user("u1", "count"), { id: "a1", role: "assistant", content: "", status: "running", toolCalls: [call("t1", "complete"), call("t2", "complete")] }] });
  assert.equal(
    stderr,
    [
      "› count",
      "● Bash(seq -s ' ' 1 100 # …)",
      "  ⎿  1 2 3 4 5 6 7 8 9 10 1…",
      "● Bash(seq -s ' ' 1 100 # t2)",
      "  ⎿  1 2 3 4 5 6 7 8 9 10 11 12 13 14 1…",
      "",
    ].join("\n"),
  );
});

test("notices of the runs (a settings file that could not be read, …) are shown as they come, not those from before the chat", () => {
  const { view, err } = capture();
  const warning = (message: string) => ({ level: "warning" as const, message });
  const old = Array.from({ length: 50 }, (_, i) => warning(`old ${i}`));
  view.show({ status: "idle", messages: [], notices: old });
  view.show({ status: "running", messages: [], notices: [...old.slice(1), warning("settings.json: invalid \x1b[2JJSON")] });
  view.show({ status: "running", messages: [], notices: [...old.slice(2), warning("settings.json: invalid \x1b[2JJSON"), { level: "error", message: "MCP server db failed" }, { level: "info", message: "compacted" }] });
  assert.equal(err(), "! settings.json: invalid [2JJSON\n✗ MCP server db failed\n· compacted\n");
});

test("a plan put to the user is printed whole, with how to approve or reject it", () => {
  const { view, err } = capture();
  const plan = "1. Write notes.txt.\n2. Read it back.";
  view.show({
    status: "awaiting-approval",
    messages: [user("u1", "add notes"), { id: "a1", role: "assistant", content: "", status: "running", toolCalls: [{ id: "t1", name: "ExitPlanMode", status: "awaiting-approval", input: { plan } }] }],
    pendingApprovals: [{ toolCallId: "t1", toolName: "ExitPlanMode", description: "Present the plan: 1. Write notes.txt. ⏎ 2. Read it back." }],
  });
  assert.equal(
    err(),
    [
      "› add notes",
      "● ExitPlanMode(1. Write notes.txt. …)",
      "? The plan needs your approval:",
      "  1. Write notes.txt.",
      "  2. Read it back.",
      "  Would you like to proceed?",
      "    1  yes, and auto-accept edits",
      "    2  yes, and approve each edit (y)",
      "    3  no, keep planning: 3 [what to change] (n [what to change])",
      "",
    ].join("\n"),
  );
});

test("a conversation joined late is shown in the order it happened: each call between the text before it and after it", () => {
  // Both streams on one terminal, as at a shell.
  let screen = "";
  const sink = { write: (t: string) => (screen += t) };
  const view = createChatView(sink, sink, { color: false, shared: true });
  const content = "Let me look.\n\nTwo files.";
  view.show({
    status: "idle",
    messages: [
      user("u1", "list files"),
      { id: "a1", role: "assistant", content, status: "complete", toolCalls: [{ id: "t1", name: "Bash", status: "complete", input: { command: "ls" }, output: "a.ts\nb.ts", textOffset: "Let me look.".length }] },
    ],
  });
  assert.equal(screen, "› list files\nLet me look.\n● Bash(ls)\n  ⎿  a.ts\n     b.ts\n\nTwo files.\n");
});

test("a steer typed while a reply streams is shown on a line of its own once the reply's line ends, not inside it", () => {
  let screen = "";
  const terminal = { write: (t: string) => (screen += t), isTTY: true, shown: () => screen };
  const view = createChatView(terminal, terminal, { color: false, shared: true });
  const reply = (content: string, status: "running" | "complete" = "running"): HarnessState => ({
    status: status === "running" ? "running" : "idle",
    messages: [user("u1", "count"), { id: "a1", role: "assistant", content, status }],
  });
  view.typed("count");
  view.show(reply("word1 word2 "));
  view.typed("also mention cats");
  view.steered("also mention cats", true);
  assert.equal(screen, "word1 word2 ", "the streamed line is left whole");
  view.show(reply("word1 word2 word3\nmore"));
  view.show(reply("word1 word2 word3\nmore words", "complete"));
  assert.equal(screen, "word1 word2 word3\n↳ steer: also mention cats\nmore words\n");
  // With nothing streaming, it is shown at once.
  view.steered("and dogs", true);
  assert.match(terminal.shown(), /\n↳ steer: and dogs\n$/);
});

test("at a terminal that holds lines below the reply, a steer sent is held until the session says what it made of it, then marked so", () => {
  let screen = "";
  const terminal = { write: (t: string) => (screen += t), isTTY: true };
  let held: readonly string[] = [];
  const view = createChatView(terminal, terminal, { color: false, shared: true }, undefined, (lines) => (held = lines));
  const reply = (id: string, content: string, status: "running" | "complete" = "running") => ({ id, role: "assistant" as const, content, status });
  view.typed("count");
  const first = [user("u1", "count"), reply("a1", "one two\n")];
  view.show({ status: "running", messages: first });
  // Sent as a steer of the run under way, which the session takes in: marked as a steer.
  view.steered("and three", true);
  assert.deepEqual(held, ["↳ steer: and three"]);
  assert.equal(screen, "one two\n");
  view.show({ status: "running", messages: [...first.slice(0, 1), reply("a1", "one two\n", "complete"), user("u2", "and three"), reply("a2", "Three.")] });
  assert.deepEqual(held, []);
  assert.equal(screen, "one two\n↳ steer: and three\nThree.");
  const second = [...first.slice(0, 1), reply("a1", "one two\n", "complete"), user("u2", "and three"), reply("a2", "Three.", "complete")];
  // Sent as a steer while the chat still saw the run, which had ended: the session made it a
  // prompt, and it shows as one, once.
  view.steered("and four", true);
  view.show({ status: "idle", messages: second });
  view.show({ status: "running", messages: [...second, user("u3", "and four"), reply("a3", "Four.")] });
  assert.deepEqual(held, []);
  assert.equal(screen, "one two\n↳ steer: and three\nThree.\n› and four\nFour.");
  // A steer the run ended without (the session says why) is no longer held.
  view.steered("and five", true);
  assert.deepEqual(held, ["↳ steer: and five"]);
  view.show({ status: "idle", messages: [...second, user("u3", "and four"), reply("a3", "Four.", "complete")] });
  assert.deepEqual(held, []);
  assert.doesNotMatch(screen, /five/);
});

test("an edit that went through shows the lines it removed and added; one that failed, its error", () => {
  const { view, err } = capture();
  const edit = (id: string, status: "running" | "complete" | "error", output?: string) => ({ id, name: "Edit", status, input: { file_path: "src/a.ts", old_string: "let n = 1;", new_string: "let n = 2;" }, ...(output && { output }) });
  const state = (...calls: ReturnType<typeof edit>[]): HarnessState => ({ status: "running", messages: [user("u1", "bump n"), { id: "a1", role: "assistant", content: "", status: "running", toolCalls: calls }] });
  view.show(state(edit("t1", "running")));
  view.show(state(edit("t1", "complete", "Edited src/a.ts: replaced 1 occurrence. The changed region now reads:\n     9\t}\n    10\tlet n = 2;")));
  view.show(state(edit("t1", "complete", "x"), edit("t2", "error", "old_string was not found in src/a.ts.")));
  assert.equal(
    err(),
    [
      "› bump n",
      "● Update(src/a.ts)",
      "  ⎿  Updated src/a.ts with 1 addition and 1 removal",
      "      9    }",
      "     10 -  let n = 1;",
      "     10 +  let n = 2;",
      "● Update(src/a.ts)",
      "  ✗  old_string was not found in src/a.ts.",
      "",
    ].join("\n"),
  );
});

test("a TodoWrite call shows at most 15 items and how many more; one whose input is not a list, or that failed, shows its output", () => {
  const { view, err } = capture();
  const todos = Array.from({ length: 18 }, (_, i) => ({ content: `Step ${i + 1}`, status: i === 0 ? "in_progress" : "pending", activeForm: `Doing step ${i + 1}` }));
  const call = (id: string, input: Record<string, unknown>, status: "complete" | "error", output: string) => ({ id, name: "TodoWrite", status, input, output });
  view.show({
    status: "idle",
    messages: [
      user("u1", "plan it"),
      {
        id: "a1",
        role: "assistant",
        content: "Planned.",
        status: "complete",
        toolCalls: [call("t1", { todos }, "complete", "Todos have been modified successfully."), call("t2", { todos: "step one" }, "error", "todos: Expected array"), call("t3", { todos }, "error", "The list was refused")],
      },
    ],
  });
  const lines = err().split("\n");
  const at = lines.indexOf("● Update Todos");
  assert.equal(lines[at + 1], "  ⎿  ☐ Step 1");
  assert.equal(lines[at + 15], "     ☐ Step 15");
  assert.equal(lines[at + 16], "     … 3 more");
  assert.match(err(), /^● TodoWrite\(\{"todos":"step one"\}\)\n {2}✗ {2}todos: Expected array$/m);
  assert.match(err(), /^● Update Todos\n {2}✗ {2}The list was refused$/m);
});

test("an edit waiting for approval shows the lines it would remove and add, as Claude Code asks with the change in view", () => {
  const { view, err } = capture();
  const call = { id: "t1", name: "Edit", status: "awaiting-approval" as const, input: { file_path: "src/a.ts", old_string: "let n = 1;", new_string: "let n = 2;" } };
  const asking: HarnessState = {
    status: "awaiting-approval",
    messages: [user("u1", "bump n"), { id: "a1", role: "assistant", content: "", status: "running", toolCalls: [call] }],
    pendingApprovals: [{ toolCallId: "t1", toolName: "Edit", description: "src/a.ts" }],
  };
  view.show(asking);
  view.show(structuredClone(asking));
  assert.equal(err(), ["› bump n", "● Update(src/a.ts)", "? Edit needs approval: src/a.ts — y to allow, n [reason] to deny", "    -  let n = 1;", "    +  let n = 2;", ""].join("\n"));
});
