// Vim mode (vim.ts) plugged into the chat's line editor (node:readline), through its `_ttyWrite`
// as chat/input/editor.ts and chat/input/search.ts take keys. In insert mode the editor takes every key as
// without vim mode (Tab, the history, Ctrl+G, Ctrl+J, Ctrl+C, Ctrl+D…), the typed text being
// recorded for `.`; Esc goes to normal mode, where the letters are vim's and Enter, the arrows and the
// Ctrl keys (but Ctrl+R, vim's redo) are the editor's still. A bracketed paste and a Ctrl+R search
// under way take their keys as ever; so do the chat's own writes to the editor (they carry no key
// sequence). A key typed within half a second of Esc comes from the terminal as Alt+key: in vim mode
// it is Esc and then the key, as in vim itself (Alt+B and Alt+F are then b and f after Esc). A prompt sent, the next starts in insert mode, as in Claude Code.
import type { Interface } from "node:readline";
import { JsonObjectFileError, readJsonObjectFile } from "@harness/agent/json-object-file";
import { userConfigFile } from "@harness/agent/user-config-dir";
import { createVim, recordInsert, vimKey, type Vim, type VimMode } from "./vim.ts";
import { clampNormal } from "./text.ts";

type Key = { name?: string; ctrl?: boolean; meta?: boolean; shift?: boolean; sequence?: string };
type Editor = Interface & { _ttyWrite(text: string | undefined, key?: Key): void; _refreshLine(): void; line: string; cursor: number };

export type VimEditing = {
  /** Turns vim mode on (in insert mode) or off; answers whether it is now on. */
  toggle(): boolean;
  /** Whether the last key was vim's (an Esc that went to normal mode is no Esc of the chat's). */
  tookLastKey(): boolean;
  stop(): void;
};

export type VimOptions = {
  /** A bracketed paste or a Ctrl+R search is under way: its keys are its own. */
  busy(): boolean;
  /** The mode to show (undefined: vim mode is off). */
  show(mode: VimMode | undefined): void;
};

/** Whether Claude Code is set to vim mode: `editorMode` of its own state file, ~/.claude.json (in
 * CLAUDE_CONFIG_DIR when set), which the chat reads and never writes. `problem`: why it could not. */
export function claudeEditorMode(home: string, env: NodeJS.ProcessEnv): { vim: boolean; problem?: string } {
  try {
    const mode = readJsonObjectFile(userConfigFile(home, env))?.value.editorMode;
    return { vim: mode === "vim" };
  } catch (error) {
    if (!(error instanceof JsonObjectFileError)) throw error;
    return { vim: false, problem: `${error.message.replace(/; it was left as it is$/, "")}: its editorMode is not read` };
  }
}

export function vimEditing(editor: Interface, o: VimOptions): VimEditing {
  const rl = editor as Editor;
  const ttyWrite = rl._ttyWrite;
  let vim: Vim | undefined;
  let took = false;
  let shown: VimMode | undefined;
  const show = () => {
    if (vim?.mode === shown) return;
    shown = vim?.mode;
    o.show(shown);
  };
  /** The editor's line and cursor become vim's. */
  const apply = (next: Vim) => {
    vim = next;
    if (rl.line !== next.text || rl.cursor !== next.cursor) {
      rl.line = next.text;
      rl.cursor = next.cursor;
      rl._refreshLine();
    }
    show();
  };
  rl._ttyWrite = (text: string | undefined, key: Key = {}) => {
    took = false;
    if (!vim || o.busy() || key.sequence === undefined || key.name === "paste-start") return ttyWrite.call(rl, text, key);
    const typed = { ...vim, text: rl.line, cursor: rl.cursor };
    // Esc and a key typed quickly after it come as one Alt+key: in vim mode, they are the two keys.
    const afterEsc = key.meta && !key.ctrl && key.sequence.length === 2 && key.sequence[0] === "\x1b" && /^[\x21-\x7e]$/.test(key.sequence[1]) ? key.sequence[1] : undefined;
    if (afterEsc) {
      took = vim.mode === "insert";
      apply(vimKey(typed, "Escape").vim);
      return rl._ttyWrite(afterEsc, { name: afterEsc.toLowerCase(), sequence: afterEsc, shift: afterEsc !== afterEsc.toLowerCase() });
    }
    if (key.name === "escape" && !key.ctrl) {
      // Esc ending insert mode or a command half typed ("d", "2f") is vim's, not the chat's.
      took = vim.mode === "insert" || vim.pending.length > 0;
      return apply(vimKey(typed, "Escape").vim);
    }
    if (vim.mode === "insert") {
      ttyWrite.call(rl, text, key);
      if (key.name === "backspace" && !key.ctrl && !key.meta) vim = recordInsert(vim, "Backspace");
      else if (text && !key.ctrl && !key.meta && !/[\x00-\x1f\x7f]/.test(text)) vim = recordInsert(vim, text);
      // Any other key (an arrow, Tab) ends what `.` repeats there.
      else vim = { ...vim, changing: undefined };
      return;
    }
    // Backspace steps back in normal mode, as h does in vim.
    const name = key.ctrl && key.name === "r" && !key.meta ? "C-r" : key.name === "backspace" && !key.ctrl && !key.meta ? "h" : !key.ctrl && !key.meta && text && [...text].length === 1 && !/[\x00-\x1f\x7f]/.test(text) ? text : undefined;
    if (name === undefined) return ttyWrite.call(rl, text, key);
    const step = vimKey(typed, name);
    if (!step.effect) return apply(step.vim);
    // j or k past the prompt's first or last line: the history, as Up and Down.
    ttyWrite.call(rl, undefined, { name: step.effect });
    apply({ ...step.vim, text: rl.line, cursor: clampNormal(rl.line, rl.cursor) });
  };
  const onLine = () => {
    if (!vim) return;
    vim = { ...createVim("insert"), register: vim.register, lastChange: vim.lastChange };
    show();
  };
  editor.on("line", onLine);
  return {
    toggle() {
      vim = vim ? undefined : createVim("insert", rl.line, rl.cursor);
      show();
      return vim !== undefined;
    },
    tookLastKey: () => took,
    stop() {
      rl._ttyWrite = ttyWrite;
      editor.off("line", onLine);
    },
  };
}
