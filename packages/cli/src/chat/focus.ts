// Whether the user of `harness chat` at a terminal is there, for its notifications (notify.ts):
// when they last typed, and, where the terminal reports it, whether it has the focus. The terminal
// is asked for focus reports (ESC[?1004h) and sends ESC[I on focus in, ESC[O on focus out; a
// terminal that does not know the mode sends nothing and the focus stays unknown. The reports are
// taken before the line editor (and the search, the paste, Ctrl+G) see them: they are no keys.
// However the chat ends, a crash included, the terminal stops reporting; Ctrl+Z stops it too until
// the chat is brought back.
import type { Interface } from "node:readline";

const ON = "\x1b[?1004h";
const OFF = "\x1b[?1004l";

type Key = { name?: string; ctrl?: boolean; code?: string };
type Editor = Interface & { _ttyWrite(text: string | undefined, key?: Key): void };
type Out = { write(text: string): unknown };

/** Whether `key` is a focus report rather than a key. */
export function focusReport(key: Key | undefined): boolean {
  return key?.code === "[I" || key?.code === "[O";
}

export type UserPresence = {
  /** Milliseconds since the user last typed (since the watch began, before any key). */
  quietMs(): number;
  /** Whether the terminal last reported the focus in; undefined before any report. */
  focused(): boolean | undefined;
  /** The reports stop (another program has the terminal); answers what starts them again. */
  aside(): () => void;
  stop(): void;
};

/** Watches the keys `editor` reads; with `reportFocus`, asks `terminal` for focus reports. Install
 * it after the other wrappers of the editor's keys, so that it sees each key first. */
export function watchPresence(editor: Interface, terminal: Out, reportFocus: boolean, now: () => number = Date.now): UserPresence {
  const rl = editor as Editor;
  const ttyWrite = rl._ttyWrite;
  let lastKeyAt = now();
  let focused: boolean | undefined;
  const on = () => terminal.write(ON);
  const off = () => terminal.write(OFF);
  rl._ttyWrite = (text: string | undefined, key: Key = {}) => {
    if (focusReport(key)) return void (focused = key.code === "[I");
    lastKeyAt = now();
    if (reportFocus && key.ctrl && key.name === "z" && process.platform !== "win32") {
      off();
      process.once("SIGCONT", on);
    }
    ttyWrite.call(rl, text, key);
  };
  if (reportFocus) {
    on();
    process.on("exit", off);
  }
  return {
    quietMs: () => now() - lastKeyAt,
    focused: () => focused,
    aside() {
      if (!reportFocus) return () => undefined;
      off();
      return on;
    },
    stop() {
      rl._ttyWrite = ttyWrite;
      if (!reportFocus) return;
      process.off("exit", off);
      process.off("SIGCONT", on);
      off();
    },
  };
}
