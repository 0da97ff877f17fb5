// Bracketed paste in `harness chat` at a terminal, as Claude Code has it. The terminal is asked to
// bracket what is pasted (ESC[?2004h); node:readline hands the brackets over as the keys
// `paste-start` and `paste-end`. What comes between them is one piece, inserted at the cursor with
// its line breaks, which enter nothing: a paste into the middle of a typed line stays there, in
// order. A long piece shows as a placeholder, "[Pasted text #1 +11 lines]" (numbered within the
// prompt being typed), which Backspace takes off whole; the line entered has each placeholder
// expanded back to its text. The history keeps the placeholder and the text apart, as Claude Code
// writes them (history.ts), and a prompt recalled (Up, Down, Ctrl+R) comes back as Claude Code
// recalls it: its placeholders drawn, their texts the prompt's pastes again, sent in their place.
// Once the line holding pastes is cleared (Ctrl+C), they are forgotten.
//
// An image attached (Ctrl+V, or a pasted path of an image file) shows as "[Image #2]", numbered
// with the pastes, and goes whole with Backspace as they do; the line entered has it as the `@path`
// mention the agent attaches the image of. The history keeps that mention, not the placeholder: a
// prompt recalled sends the image again while its file is there, and never a placeholder without one.
//
// Without the brackets (a terminal that does not send them) the chat's gathering of lines that
// arrive together (PASTE_MS in chat/chat.ts) takes the paste as before.
import type { Interface } from "node:readline";
import { expanded } from "./history.ts";
import { continues } from "./keys.ts";
import { printable } from "../../display/terminal-text.ts";

/** Claude Code's rule: a paste of more than PASTE_CHARS characters, or of more than PASTE_BREAKS line
 * breaks, is shown as a placeholder (it takes min(terminal rows - 10, 2) line breaks: 2 at any
 * terminal of a usable height). */
const PASTE_CHARS = 800;
const PASTE_BREAKS = 2;

/** A paste's keys come in one burst: Ctrl+C after this long without one is the user's, at a paste
 * whose end was lost (Node's key reader takes ESC ESC and the end after them for one key). What was
 * pasted goes, and the Ctrl+C acts as ever: the editor does not stay deaf to every key. */
const LOST_END_MS = 500;

const ON = "\x1b[?2004h";
const OFF = "\x1b[?2004l";

/** A paste's text as Claude Code's history keeps it, under its number. */
export type PastedText = { id: number; type: "text"; content: string };
export type PastedContents = Record<number, PastedText>;
/** A prompt as the history keeps it: its placeholders in `display`, their texts apart. */
export type KeptPrompt = { display: string; pastedContents: PastedContents };
/** A text pasted into a prompt recalled: its number, its placeholder as the prompt shows it. */
export type RecalledPaste = { id: number; placeholder: string; content: string };

type Key = { name?: string; ctrl?: boolean; meta?: boolean; sequence?: string };
type Editor = Interface & { _ttyWrite(text: string | undefined, key?: Key): void; _insertString(text: string): void; _refreshLine(): void; line: string; cursor: number; historyIndex: number };
type Out = { write(text: string): unknown };

const breaks = (text: string) => (text.match(/\r\n|\r|\n/g) ?? []).length;

/** Whether `text`, pasted, is shown as a placeholder. */
export function collapses(text: string): boolean {
  return text.length > PASTE_CHARS || breaks(text) > PASTE_BREAKS;
}

/** The placeholder of paste number `id`: its count is of line breaks, as Claude Code counts. */
export function placeholder(id: number, text: string): string {
  const count = breaks(text);
  return count === 0 ? `[Pasted text #${id}]` : `[Pasted text #${id} +${count} lines]`;
}

export type BracketedPaste = {
  /** `line` (the editor's, as typed) with the placeholders of the prompt being typed expanded. */
  expand(line: string): string;
  /** `prompt` (entered, expanded) as the history keeps it: the texts pasted into it since the last
   * call given back their placeholders. */
  forHistory(prompt: string): KeptPrompt;
  /** A paste is under way: the keys that come are its text, not the chat's keys (keys.ts). */
  pasting(): boolean;
  /** Whether `line` (handed over, expanded) goes on to the next line of the prompt (keys.ts):
   * as typed, ending in `\`; a `\` at the end of a placeholder's text does not count. */
  goesOn(line: string): boolean;
  /** Puts `text` in at the cursor as typed (never a placeholder), its line breaks kept in the line
   * handed over as they are in a paste's (editor.ts). */
  type(text: string): void;
  /** Puts the placeholder of an image in at the cursor; the line handed over has `mention` for it. */
  attach(mention: string): void;
  /** The line being typed was cleared: its pastes are forgotten, and the numbers start again. */
  forget(): void;
  /** The terminal leaves bracketed paste mode; the editor goes back to its own keys. */
  stop(): void;
};

/** An image's placeholder. */
export const imagePlaceholder = (id: number) => `[Image #${id}]`;

/** `line` with each image's placeholder as its mention, set apart by blanks (a mention starts after
 * one, and ends at one; sentence punctuation at its end is left off it, so that punctuation the line
 * ends in or has a blank after stays against it: agent/context/markdown-imports.ts). */
function withMentions(line: string, images: Iterable<{ placeholder: string; content: string }>): string {
  let text = line;
  for (const { placeholder, content } of images) {
    const parts = text.split(placeholder);
    text = parts.reduce((out, part) => `${out}${/\S$/.test(out) ? " " : ""}${content}${/^(\s|[.,;:!?)\]}'"]+(\s|$))/.test(part) || part === "" ? "" : " "}${part}`);
  }
  return text;
}

/** Bracketed paste for `editor`, which draws on `terminal`. `recalled`: the texts pasted into the
 * prompt at `index` of the editor's history, which it holds with their placeholders. `imageOf`: the
 * mention of the image a paste names (pasted-image-path.ts), if it names one. */
export function bracketedPaste(editor: Interface, terminal: Out, recalled: (index: number) => readonly RecalledPaste[] | undefined = () => undefined, imageOf: (text: string) => string | undefined = () => undefined): BracketedPaste {
  const rl = editor as Editor;
  const ttyWrite = rl._ttyWrite;
  /** The collapsed pastes of the prompt being typed, by number. */
  let pastes = new Map<number, { placeholder: string; content: string }>();
  /** The images of the prompt being typed, by number: their placeholders and mentions. */
  let images = new Map<number, { placeholder: string; content: string }>();
  let count = 0;
  /** What is pasted so far, between the brackets. */
  let pasting: string | undefined;
  /** When the last key between the brackets came. */
  let lastPasteKeyAt = 0;
  /** Something was pasted into the line being typed. */
  let pastedInto = false;
  /** The line as typed at its Enter, when something was pasted into it. */
  let entering: string | undefined;
  /** Lines handed over that end in `\` only as expanded, the latest few: the chat reads a line a
   * little after the editor hands it over. */
  const pastedEnds: string[] = [];
  /** Pastes entered, for the history, in the order they stand in the prompt. */
  let entered: { id: number; placeholder: string; content: string }[] = [];

  const expand = (line: string) => expanded(withMentions(line, images.values()), pastes.values());
  const attach = (mention: string) => {
    pastedInto = true;
    const id = ++count;
    images.set(id, { placeholder: imagePlaceholder(id), content: mention });
    rl._insertString(imagePlaceholder(id));
  };
  const insert = (text: string) => {
    const image = imageOf(text);
    if (image !== undefined) return attach(image);
    pastedInto = true;
    if (!collapses(text)) return rl._insertString(text);
    const id = ++count;
    const shown = placeholder(id, text);
    pastes.set(id, { placeholder: shown, content: text });
    rl._insertString(shown);
  };
  /** Backspace just after a placeholder of this prompt: it goes whole. */
  const takeOffPlaceholder = (): boolean => {
    const before = rl.line.slice(0, rl.cursor);
    for (const [id, paste] of [...pastes, ...images]) {
      if (!before.endsWith(paste.placeholder)) continue;
      pastes.delete(id);
      images.delete(id);
      rl.line = before.slice(0, -paste.placeholder.length) + rl.line.slice(rl.cursor);
      rl.cursor -= paste.placeholder.length;
      rl._refreshLine();
      return true;
    }
    return false;
  };
  /** The line being typed's pastes while a prompt recalled is on the line (the editor gives the
   * line back at Down). */
  let typing: { pastes: typeof pastes; images: typeof images; count: number; pastedInto: boolean } | undefined;
  /** The editor went from history entry `from` to `to` (-1: the line being typed). */
  const moved = (from: number, to: number) => {
    if (from === -1) typing = { pastes, images, count, pastedInto };
    if (to === -1) {
      ({ pastes, images, count, pastedInto } = typing ?? { pastes: new Map(), images: new Map(), count: 0, pastedInto: false });
      typing = undefined;
      return;
    }
    pastes = new Map();
    images = new Map();
    for (const { id, placeholder, content } of recalled(to) ?? []) pastes.set(id, { placeholder, content });
    // Claude Code's history keeps an image's "[Image #N]" as text: a new one takes another number.
    const shownImages = [...rl.line.matchAll(/\[Image #(\d+)\]/g)].map(([, id]) => Number(id));
    count = Math.max(0, ...pastes.keys(), ...shownImages);
    pastedInto = pastes.size > 0;
  };
  const forget = () => {
    pastes = new Map();
    images = new Map();
    count = 0;
    typing = undefined;
    pastedInto = false;
  };
  const on = () => terminal.write(ON);
  const off = () => terminal.write(OFF);

  rl._ttyWrite = (text: string | undefined, key: Key = {}) => {
    if (key.name === "paste-start") {
      lastPasteKeyAt = Date.now();
      return void (pasting = "");
    }
    if (pasting !== undefined && key.ctrl && key.name === "c" && Date.now() - lastPasteKeyAt >= LOST_END_MS) pasting = undefined;
    if (pasting !== undefined) {
      lastPasteKeyAt = Date.now();
      if (key.name !== "paste-end") return void (pasting += key.sequence ?? text ?? "");
      // Control characters pasted (escape sequences of coloured output) would act on the terminal as
      // the line is drawn: they go, as from a prompt recalled (history.ts); tabs and breaks stay.
      const piece = printable(pasting.replace(/\r\n?/g, "\n"));
      pasting = undefined;
      return piece ? insert(piece) : undefined;
    }
    if (key.name === "backspace" && !key.ctrl && !key.meta && takeOffPlaceholder()) return;
    if (key.name === "return" || key.name === "enter") entering = pastedInto ? rl.line : undefined;
    // Ctrl+Z stops the chat (the editor sends SIGTSTP): the shell gets its terminal back as it was.
    if (key.ctrl && key.name === "z" && process.platform !== "win32") {
      off();
      process.once("SIGCONT", on);
    }
    const from = rl.historyIndex;
    ttyWrite.call(rl, text, key);
    if (rl.historyIndex !== from) moved(from, rl.historyIndex);
  };
  // The line handed over is the one typed, expanded: the editor would hand over a line holding line
  // breaks in its history's form (its lines reversed).
  const emit = rl.emit.bind(rl) as (event: string | symbol, ...args: unknown[]) => boolean;
  rl.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === "line" && typeof args[0] === "string") {
      const typed = entering ?? args[0];
      entering = undefined;
      pastedInto = false;
      // In the order they stand in the line, which forHistory finds them in.
      const inLine = [...pastes].map(([id, paste]) => ({ id, ...paste, at: typed.indexOf(paste.placeholder) })).filter(({ at }) => at !== -1);
      for (const { at, ...paste } of inLine.sort((a, b) => a.at - b.at)) entered.push(paste);
      const line = (args[0] = expand(typed));
      if (!continues(typed) && continues(line) && pastedEnds.unshift(line) > 8) pastedEnds.pop();
      // A line that goes on (`\`) is of the same prompt: its numbers go on too.
      if (!continues(typed)) forget();
    }
    return emit(event, ...args);
  }) as typeof rl.emit;
  on();
  // However the chat ends, a crash included, the terminal does not stay in the mode.
  process.on("exit", off);

  return {
    expand,
    type(text) {
      pastedInto = true;
      rl._insertString(text);
    },
    attach,
    forget,
    pasting: () => pasting !== undefined,
    goesOn: (line) => continues(line) && !pastedEnds.includes(line),
    forHistory(prompt) {
      const pastedContents: PastedContents = {};
      let display = "";
      let rest = prompt;
      for (const paste of entered) {
        const at = rest.indexOf(paste.content);
        if (at === -1) continue;
        display += rest.slice(0, at) + paste.placeholder;
        rest = rest.slice(at + paste.content.length);
        pastedContents[paste.id] = { id: paste.id, type: "text", content: paste.content };
      }
      entered = [];
      return { display: display + rest, pastedContents };
    },
    stop() {
      process.off("exit", off);
      process.off("SIGCONT", on);
      rl._ttyWrite = ttyWrite;
      off();
    },
  };
}
