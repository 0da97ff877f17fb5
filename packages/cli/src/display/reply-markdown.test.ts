// The replies of `harness chat` and `harness run` at a terminal in colour: their markdown rendered,
// what it holds back printed before a tool call's line and when a reply is cut off; piped or
// without colour, the reply as the model wrote it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { stripVTControlCharacters } from "node:util";
import type { HarnessMessage, HarnessState } from "@harness/protocol";
import { createChatView } from "../chat/screen/view.ts";
import { createRenderer } from "./render.ts";

/** One terminal both streams write to (`isTTY`: whether it is one), and what it was written. */
function screen(isTTY: boolean) {
  let written = "";
  return { sink: { isTTY, columns: 40, write: (t: string) => (written += t) }, written: () => written, text: () => stripVTControlCharacters(written) };
}

const TABLE = "| a | b |\n|---|--:|\n| 1 | 22 |\n";
const TABLE_SHOWN = "┌───┬────┐\n│ a │  b │\n├───┼────┤\n│ 1 │ 22 │\n└───┴────┘\n";
const prompt: HarnessMessage = { id: "u1", role: "user", content: "go", status: "complete" };
const reply = (content: string, status: HarnessMessage["status"], toolCalls?: HarnessMessage["toolCalls"]): HarnessState => ({
  status: status === "running" ? "running" : "idle",
  messages: [prompt, { id: "a1", role: "assistant", content, status, ...(toolCalls && { toolCalls }) }],
});

test("a chat in colour at a terminal renders the reply, and prints a held table before the tool call after it", () => {
  const term = screen(true);
  const view = createChatView(term.sink, term.sink, { color: true });
  view.typed("go");
  // (A paragraph's first line waits for its first characters: a pipe in them would make it a
  // table's header.)
  view.show(reply("## Plan\nThe **first** step, then the second st", "running"));
  assert.equal(term.text(), "Plan\nThe first step, then the second st", "text appears as it streams");
  assert.match(term.written(), /\x1b\[1mfirst\x1b\[0m step, then the second st$/);
  view.show(reply(`## Plan\nThe **first** step, then the second step:\n${TABLE}`, "running"));
  assert.equal(term.text(), "Plan\nThe first step, then the second step:\n", "the table is held until it ends");
  const call = { id: "t1", name: "Bash", status: "running" as const, input: { command: "ls" }, textOffset: 62 };
  view.show(reply(`## Plan\nThe **first** step, then the second step:\n${TABLE}`, "running", [call]));
  view.show(reply(`## Plan\nThe **first** step, then the second step:\n${TABLE}Done.`, "complete", [{ ...call, status: "complete", output: "x" }]));
  assert.equal(term.text(), `Plan\nThe first step, then the second step:\n${TABLE_SHOWN}● Bash(ls)\n  ⎿  x\nDone.\n`);
});

test("a chat reply cancelled mid-way prints what its markdown held, then says it was cancelled", () => {
  const term = screen(true);
  const view = createChatView(term.sink, term.sink, { color: true });
  view.typed("go");
  view.show(reply(`Here:\n${TABLE}`, "running"));
  view.show(reply(`Here:\n${TABLE}`, "cancelled"));
  assert.equal(term.text(), `Here:\n${TABLE_SHOWN}(cancelled)\n`);
});

test("a chat piped, or at a terminal without colour, prints the reply as the model wrote it", () => {
  for (const [isTTY, color] of [[false, true], [true, false]]) {
    const term = screen(isTTY);
    const view = createChatView(term.sink, term.sink, { color });
    view.typed("go");
    view.show(reply(`## Plan\n**b** ${TABLE}`, "running"));
    view.show(reply(`## Plan\n**b** ${TABLE}`, "complete"));
    assert.equal(term.text(), `## Plan\n**b** ${TABLE}`, `isTTY ${isTTY}, color ${color}`);
  }
});

test("harness run in colour at a terminal renders the reply, and prints what it held before a tool call", () => {
  const term = screen(true);
  const renderer = createRenderer(term.sink, term.sink, { color: true, cwd: "/w" });
  for (const text of ["# Ti", "tle\n", TABLE.slice(0, 20), TABLE.slice(20)]) renderer.event({ type: "assistant.delta", text });
  assert.equal(term.text(), "Title\n");
  renderer.event({ type: "tool.started", toolUseId: "t1", toolName: "Bash", input: { command: "ls" } });
  renderer.event({ type: "tool.completed", toolUseId: "t1", output: "x", isError: false });
  renderer.event({ type: "assistant.delta", text: "Done `now" });
  renderer.finish();
  assert.equal(term.text(), `Title\n${TABLE_SHOWN}● Bash(ls)\n  ⎿  x\n\nDone now\n`);
  assert.match(term.written(), /\x1b\[36mnow\x1b\[0m\n$/);
});

test("control sequences in a reply reach no terminal: not in a code block's colours, not in a table's cells, not as C1 controls", () => {
  const hostile = "\x1b]52;c;ZXZpbA==\x07 \x9d0;title\x9c \x90q\x9c \x9b2J \x1b[2J";
  const content = `Text ${hostile}\n\`\`\`ts\nconst s = "${hostile}";\n\`\`\`\n| a | b |\n|---|---|\n| ${hostile} | x |\n`;
  for (const print of [chatPrints, runPrints]) {
    const written = print(content);
    assert.doesNotMatch(written.replace(/\x1b\[[\d;]*m/g, ""), /[\x00-\x09\x0b-\x1f\x7f-\x9f]/, print.name);
    assert.match(written, /52;c;ZXZpbA==/, print.name);
  }
});

test("a table whose cells hold tabs keeps its columns aligned", () => {
  const shown = stripVTControlCharacters(chatPrints("| a | b |\n|---|---|\n| x\ty | z |\n| long cell | z |\n"));
  const rows = shown.split("\n").filter((row) => row.startsWith("│"));
  assert.deepEqual(new Set(rows.map((row) => row.indexOf("│", 1))).size, 1, shown);
  assert.doesNotMatch(shown, /\t/);
});

/** What a chat in colour at a terminal writes of the reply `content`. */
function chatPrints(content: string): string {
  const term = screen(true);
  const view = createChatView(term.sink, term.sink, { color: true });
  view.typed("go");
  view.show(reply(content, "complete"));
  return term.written();
}

/** What a run in colour at a terminal writes of the reply `content`. */
function runPrints(content: string): string {
  const term = screen(true);
  const renderer = createRenderer(term.sink, term.sink, { color: true, cwd: "/" });
  renderer.event({ type: "assistant.delta", text: content });
  renderer.finish();
  return term.written();
}
