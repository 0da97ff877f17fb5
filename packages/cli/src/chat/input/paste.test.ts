// Bracketed paste in the chat's line editor: what arrives between the terminal's paste brackets is
// one piece at the cursor, a long one shown as Claude Code's placeholder, expanded when entered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { findImports } from "@harness/agent/markdown-imports";
import { bracketedPaste, collapses, placeholder, type KeptPrompt } from "./paste.ts";
import { reverseSearch } from "./search.ts";
import { appendHistory, loadHistory } from "./history.ts";

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

test("the history keeps the prompt with its placeholders and their texts, as Claude Code does, and gives back the prompt as shown", async (t) => {
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
  assert.deepEqual(loadHistory(file, "/p").entries, [kept.display]);
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

/** An editor recalling `kept` (most recent first) as the chat's does: each prompt's display, its
 * pastes apart. */
function recallingEditor(t: { after(fn: () => unknown): void }, kept: KeptPrompt[]) {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
  const editor = createInterface({ input, output, terminal: true, prompt: "", history: kept.map((k) => k.display), historySize: 100 });
  editor.on("history", (h: string[]) => h.splice(0, h.length, ...kept.map((k) => k.display)));
  const paste = bracketedPaste(editor, output, (index) => Object.values(kept[index]?.pastedContents ?? {}).map(({ id, content }) => ({ id, placeholder: placeholder(id, content), content })));
  const search = reverseSearch(editor, () => paste.pasting());
  const entered: string[] = [];
  editor.on("line", (line: string) => entered.push(line));
  t.after(() => (search.stop(), paste.stop(), editor.close()));
  const type = async (keys: string) => {
    input.write(keys);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { editor, paste, entered, type };
}

const keptWith = (display: string, texts: Record<number, string>): KeptPrompt => ({
  display,
  pastedContents: Object.fromEntries(Object.entries(texts).map(([id, content]) => [id, { id: Number(id), type: "text", content }])),
});

test("a prompt recalled by Up shows its placeholders and is sent as its text; Backspace takes one off whole; a new paste numbers after them", async (t) => {
  const { editor, paste, entered, type } = recallingEditor(t, [keptWith("see [Pasted text #1 +3 lines] and [Pasted text #3 +4 lines]", { 1: lines(4), 3: lines(5) }), keptWith("plain", {})]);
  await type("\x1b[A");
  assert.equal(editor.line, "see [Pasted text #1 +3 lines] and [Pasted text #3 +4 lines]", "drawn as its display, not 9 lines of text");
  await type("\r");
  assert.deepEqual(entered, [`see ${lines(4)} and ${lines(5)}`]);
  assert.deepEqual(paste.forHistory(entered[0]).display, "see [Pasted text #1 +3 lines] and [Pasted text #3 +4 lines]");
  await type("\x1b[A\x7f");
  assert.equal(editor.line, "see [Pasted text #1 +3 lines] and ");
  await type(`${START}${lines(6)}${END}\r`);
  assert.equal(entered[1], `see ${lines(4)} and ${lines(6)}`);
  assert.equal(paste.forHistory(entered[1]).display, "see [Pasted text #1 +3 lines] and [Pasted text #4 +5 lines]", "numbered after the recalled ones");
});

test("Up then Down gives back the line being typed with its own paste; a prompt without pastes recalls as ever", async (t) => {
  const { editor, entered, type } = recallingEditor(t, [keptWith("older [Pasted text #1 +3 lines]", { 1: lines(4) }), keptWith("plain", {})]);
  await type(`mine ${START}${lines(7)}${END}`);
  await type("\x1b[A\x1b[B");
  assert.equal(editor.line, "mine [Pasted text #1 +6 lines]");
  await type("\r");
  assert.deepEqual(entered, [`mine ${lines(7)}`]);
  await type("\x1b[A\x1b[A");
  assert.equal(editor.line, "plain");
  await type("\r");
  assert.equal(entered[1], "plain");
});

test("Ctrl+R finds a prompt by what it shows, and Enter sends it with its pastes' text", async (t) => {
  const { entered, type } = recallingEditor(t, [keptWith("fix [Pasted text #1 +3 lines] now", { 1: lines(4) }), keptWith("plain", {})]);
  await type("\x12line 2");
  assert.deepEqual(entered, []);
  await type("\x12Pasted text #1\r");
  assert.deepEqual(entered, [`fix ${lines(4)} now`]);
});

test("once the line holding a paste is cleared, the paste is forgotten: its placeholder typed is only text", async (t) => {
  const { editor, paste, entered, type } = editorAt(t);
  await type(`${START}${lines(4)}${END}`);
  paste.forget();
  await type("\x05\x15[Pasted text #1 +3 lines]\r");
  assert.deepEqual(entered, ["[Pasted text #1 +3 lines]"]);
  await type(`${START}${lines(5)}${END}`);
  assert.equal(editor.line, "[Pasted text #1 +4 lines]", "the numbers start again");
});

test("a Ctrl+R inside a paste is pasted text, dropped as a control character: no search starts", async (t) => {
  const { editor, entered, type } = recallingEditor(t, [keptWith("plain", {})]);
  await type(`${START}a\x12b${END}`);
  assert.equal(editor.line, "ab");
  await type("\r");
  assert.deepEqual(entered, ["ab"]);
});

test("an image attached shows as [Image #N], numbered with the pastes, and is entered as its mention set apart by blanks", async (t) => {
  const { editor, paste, entered, type } = editorAt(t);
  await type(`see${START}${lines(4).replaceAll("\n", "\r")}${END}`);
  paste.attach("@.harness/images/a.png");
  assert.equal(editor.line, "see[Pasted text #1 +3 lines][Image #2]");
  await type("now, and ");
  paste.attach("@.harness/images/b.png");
  await type(".\r");
  assert.deepEqual(entered, [`see${lines(4)} @.harness/images/a.png now, and @.harness/images/b.png.`]);
  assert.deepEqual(paste.forHistory(entered[0]!), { display: `see[Pasted text #1 +3 lines] @.harness/images/a.png now, and @.harness/images/b.png.`, pastedContents: { 1: { id: 1, type: "text", content: lines(4) } } }, "the history keeps the mentions");
});

test("an image followed by a quote and more, or by punctuation, is entered as a mention that names its file", async (t) => {
  const { paste, entered, type } = editorAt(t);
  await type("what is in ");
  paste.attach("@.harness/images/a.png");
  await type("'s corner, and (");
  paste.attach("@.harness/images/b.png");
  await type(")? or ");
  paste.attach("@.harness/images/c.png");
  await type("\"x\"\r");
  assert.deepEqual(findImports(entered[0]!), [".harness/images/a.png", ".harness/images/b.png", ".harness/images/c.png"], entered[0]);
  assert.match(entered[0]!, / @\.harness\/images\/b\.png\)\? or/, "punctuation followed by a blank stays against it");
});

test("an image whose placeholder was taken off, or on a line cleared, is not entered", async (t) => {
  const { editor, paste, entered, type } = editorAt(t);
  await type("a ");
  paste.attach("@x.png");
  await type("\x7f");
  assert.equal(editor.line, "a ");
  await type("\r");
  paste.attach("@y.png");
  await type("\x15");
  paste.forget();
  await type("[Image #1] typed\r");
  assert.deepEqual(entered, ["a ", "[Image #1] typed"]);
});

test("an image attached to a prompt recalled from Claude Code's history, which holds an [Image #N] as text, takes another number", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-paste-images-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "history.jsonl");
  appendHistory(file, "/p", { display: "look at [Image #1]", pastedContents: { 1: { id: 1, type: "image", content: "iVBOR" } } } as unknown as KeptPrompt);
  const loaded = loadHistory(file, "/p");
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
  const editor = createInterface({ input, output, terminal: true, prompt: "", history: loaded.entries.slice() });
  const paste = bracketedPaste(editor, output, () => undefined);
  const entered: string[] = [];
  editor.on("line", (line: string) => entered.push(line));
  t.after(() => (paste.stop(), editor.close()));
  input.write("\x1b[A");
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(editor.line, "look at [Image #1]");
  paste.attach("@new.png");
  input.write("\r");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(entered, ["look at [Image #1] @new.png"]);
});
