// Bracketed paste in the chat's line editor: what arrives between the terminal's paste brackets is
// one piece at the cursor, a long one shown as Claude Code's placeholder, expanded when entered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { bracketedPaste, collapses, placeholder } from "./chat-paste.ts";
import { appendHistory, loadHistory } from "./chat-history.ts";

const START = "\x1b[200~";
const END = "\x1b[201~";
const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

test("a paste of more than 800 characters or more than two line breaks is collapsed, as in Claude Code", () => {
  assert.equal(collapses("one line"), false);
  assert.equal(collapses("a\nb\nc"), false);
  assert.equal(collapses("a\nb\nc\nd"), true);
  assert.equal(collapses("x".repeat(800)), false);
  assert.equal(collapses("x".repeat(801)), true);
  assert.equal(placeholder(1, lines(12)), "[Pasted text #1 +11 lines]");
  assert.equal(placeholder(2, "x".repeat(900)), "[Pasted text #2]");
});

/** An editor at a fake terminal with bracketed paste, and the lines it hands over. */
function editorAt(t: { after(fn: () => unknown): void }) {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
  let written = "";
  output.on("data", (d: Buffer) => (written += d.toString()));
  const editor = createInterface({ input, output, terminal: true, prompt: "" });
  const paste = bracketedPaste(editor, output);
  const entered: string[] = [];
  editor.on("line", (line: string) => entered.push(line));
  t.after(() => (paste.stop(), editor.close()));
  const type = async (keys: string) => {
    input.write(keys);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { editor, paste, entered, type, written: () => written };
}

test("the terminal's bracketed paste mode is turned on, and off when the editor stops", (t) => {
  const { paste, written } = editorAt(t);
  assert.match(written(), /\x1b\[\?2004h/);
  paste.stop();
  assert.match(written(), /\x1b\[\?2004l$/);
});

test("a long paste shows as a placeholder at the cursor and is entered as its text, in order", async (t) => {
  const { editor, entered, type } = editorAt(t);
  await type("before  after\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D");
  await type(`${START}${lines(12).replaceAll("\n", "\r")}${END}`);
  assert.equal(editor.line, "before [Pasted text #1 +11 lines] after");
  assert.deepEqual(entered, [], "the paste's line breaks enter nothing");
  await type("\r");
  assert.deepEqual(entered, [`before ${lines(12)} after`]);
});

test("a short paste goes in as text, its line breaks kept and entering nothing", async (t) => {
  const { editor, entered, type } = editorAt(t);
  await type("ab\x1b[D");
  await type(`${START}one\rtwo${END}`);
  assert.equal(editor.line, "aone\ntwob");
  assert.deepEqual(entered, []);
  await type("\r");
  assert.deepEqual(entered, ["aone\ntwob"]);
});

test("Backspace just after a placeholder takes it off whole, and its text is not sent", async (t) => {
  const { editor, entered, type } = editorAt(t);
  await type(`x ${START}${lines(5)}${END}`);
  assert.equal(editor.line, "x [Pasted text #1 +4 lines]");
  await type("\x7f");
  assert.equal(editor.line, "x ");
  await type(`${START}${lines(4)}${END}`);
  assert.equal(editor.line, "x [Pasted text #2 +3 lines]", "the count goes on within the prompt");
  await type("\x1b[D\x7f");
  assert.equal(editor.line, "x [Pasted text #2 +3 line]", "an ordinary Backspace within it");
  await type("\r");
  assert.deepEqual(entered, ["x [Pasted text #2 +3 line]"], "a placeholder no longer whole stays as typed");
});

test("pastes count from #1 again in the next prompt", async (t) => {
  const { editor, entered, type } = editorAt(t);
  await type(`${START}${lines(4)}${END}\r`);
  await type(`${START}${lines(6)}${END}`);
  assert.equal(editor.line, "[Pasted text #1 +5 lines]");
  await type("\r");
  assert.deepEqual(entered, [lines(4), lines(6)]);
});

test("the history keeps the prompt with its placeholders and their texts, as Claude Code does, and gives back the text", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-paste-history-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { paste, type } = editorAt(t);
  await type(`see ${START}${lines(4)}${END} and ${START}${lines(5)}${END}\r`);
  const kept = paste.forHistory(`see ${lines(4)} and ${lines(5)}`);
  assert.deepEqual(kept, {
    display: "see [Pasted text #1 +3 lines] and [Pasted text #2 +4 lines]",
    pastedContents: { 1: { id: 1, type: "text", content: lines(4) }, 2: { id: 2, type: "text", content: lines(5) } },
  });
  assert.deepEqual(paste.forHistory("later"), { display: "later", pastedContents: {} }, "each paste is kept once");
  const file = join(dir, "history.jsonl");
  appendHistory(file, "/p", kept);
  const line = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(line.display, kept.display);
  assert.deepEqual(line.pastedContents, JSON.parse(JSON.stringify(kept.pastedContents)));
  assert.deepEqual(loadHistory(file, "/p").entries, [`see ${lines(4)} and ${lines(5)}`]);
});

test("a paste put before an earlier one keeps its placeholder in the history too", async (t) => {
  const { paste, entered, type } = editorAt(t);
  await type(`${START}${lines(4)}${END}`);
  await type(`\x01${START}${lines(5)}${END} then \r`);
  assert.deepEqual(entered, [`${lines(5)} then ${lines(4)}`]);
  assert.deepEqual(paste.forHistory(entered[0]), {
    display: "[Pasted text #2 +4 lines] then [Pasted text #1 +3 lines]",
    pastedContents: { 1: { id: 1, type: "text", content: lines(4) }, 2: { id: 2, type: "text", content: lines(5) } },
  });
});
