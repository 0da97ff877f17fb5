// Ctrl+R in `harness chat` at a terminal: a reverse incremental search of the prompts recalled (the
// line editor's history, most recent first), drawn on the typed line's row as bash and readline draw
// it: (reverse-i-search)`text': match. As in Claude Code: each key typed narrows the search, Ctrl+R
// again goes to the next older match, Enter sends the match, Tab or Esc puts it on the line to edit,
// Ctrl+G or Ctrl+C (and Backspace with nothing left to search for) leave the line as it was. Any
// other key (an arrow, Ctrl+A…) puts the match on the line and then does what it does there.
//
// The search takes the keys before the line editor (node:readline) does, through the editor's
// `_ttyWrite`, the hook its keys go through (Node's own REPL searches its history the same way).
import type { Interface } from "node:readline";
import { promptOf as textOf } from "./recall.ts";

type Key = { name?: string; ctrl?: boolean; meta?: boolean; shift?: boolean; sequence?: string };
type Editor = Interface & { _ttyWrite(text: string | undefined, key: Key): void; cursor: number; line: string; history: string[]; historyIndex: number };

export type ReverseSearch = {
  /** Whether the key the editor was given last went to the search (then it is not the chat's). */
  tookLastKey(): boolean;
  /** Whether a search is under way (it takes the keys). */
  searching(): boolean;
  stop(): void;
};


/** `pasting`: a bracketed paste is under way (paste.ts): its keys, a Ctrl+R among them, are
 * text, not the search's. */
export function reverseSearch(editor: Interface, pasting: () => boolean = () => false): ReverseSearch {
  const rl = editor as Editor;
  const ttyWrite = rl._ttyWrite;
  /** The search under way: what is searched for, the match's index in the history (-1: none yet),
   * whether the last narrowing found nothing, and the line as it was. */
  let search: { query: string; at: number; failed: boolean; line: string; cursor: number } | undefined;
  let took = false;

  const find = (query: string, from: number, skip?: string): number => {
    if (!query) return -1;
    for (let i = Math.max(0, from); i < rl.history.length; i++) {
      const text = textOf(rl.history[i]);
      if (text !== skip && text.includes(query)) return i;
    }
    return -1;
  };
  const draw = () => {
    const s = search!;
    const match = s.at === -1 ? "" : textOf(rl.history[s.at]).replaceAll("\n", " ↵ ");
    rl.setPrompt(`(${s.failed ? "failed " : ""}reverse-i-search)\`${s.query}': `);
    rl.line = match;
    rl.cursor = Math.max(0, match.indexOf(s.query.replaceAll("\n", " ↵ ")));
    rl.prompt(true);
  };
  const narrow = (query: string, from: number, skip?: string) => {
    const s = search!;
    const at = find(query, from, skip);
    s.query = query;
    s.failed = at === -1 && query !== "";
    if (at !== -1 || query === "") s.at = at;
    draw();
  };
  /** Ends the search: the line is the match (or as it was, `restore`). */
  const end = (restore: boolean) => {
    const s = search!;
    search = undefined;
    rl.setPrompt("");
    if (restore || s.at === -1) {
      rl.line = s.line;
      rl.cursor = s.cursor;
      rl.prompt(true);
      return;
    }
    // The match is recalled as Up recalls it, so that Up and Down go on from it.
    rl.line = "";
    rl.cursor = 0;
    rl.historyIndex = s.at - 1;
    ttyWrite.call(rl, undefined, { name: "up" });
  };

  rl._ttyWrite = (text: string | undefined, key: Key = {}) => {
    if (pasting()) return void ((took = false), ttyWrite.call(rl, text, key));
    took = search !== undefined || (key.ctrl === true && key.name === "r");
    if (!search) {
      if (!took) return ttyWrite.call(rl, text, key);
      search = { query: "", at: -1, failed: false, line: rl.line, cursor: rl.cursor };
      return draw();
    }
    const s = search;
    if (key.ctrl && key.name === "r") return narrow(s.query, s.at + 1, s.at === -1 ? undefined : textOf(rl.history[s.at]));
    if (key.ctrl && (key.name === "g" || key.name === "c")) return end(true);
    if (key.name === "backspace") return s.query ? narrow(s.query.slice(0, -1), 0) : end(true);
    if (key.name === "tab" || key.name === "escape") return end(false);
    if (key.name === "return") {
      end(false);
      return ttyWrite.call(rl, text, key);
    }
    if (text && !key.ctrl && !key.meta && !/[\x00-\x1f\x7f]/.test(text)) return narrow(s.query + text, Math.max(0, s.at));
    end(false);
    ttyWrite.call(rl, text, key);
  };
  return {
    tookLastKey: () => took,
    searching: () => search !== undefined,
    stop: () => void (rl._ttyWrite = ttyWrite),
  };
}
