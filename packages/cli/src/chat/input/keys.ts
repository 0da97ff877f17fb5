// Keys of `harness chat` at a terminal beyond those of its line editor (node:readline), as Claude
// Code's interactive mode has them: Esc (a run under way stops), Esc twice, Ctrl+B, Ctrl+O, Ctrl+T, Ctrl+V, and a new line of the
// same prompt with Alt+Enter (ESC then Enter, as terminals send Option/Alt+Enter, and Shift+Enter
// once set up to) or with Shift+Enter where the terminal tells it apart (the kitty keyboard
// protocol's ESC[13;2u). The editor has one line: a new line of the prompt is the line entered
// with a `\` at its end, which the chat takes as going on (see continues()).
import type { Interface } from "node:readline";

/** Two presses of Esc this close together are a double Esc. */
const DOUBLE_ESC_MS = 800;

export type KeyActions = {
  /** Esc, pressed once: whether it did something (a second press then is not a double Esc). */
  escape(): boolean;
  /** Esc pressed twice, the first press having done nothing. */
  doubleEscape(): void;
  /** Shift+Tab (ESC[Z), which the line editor leaves alone: the next permission mode. */
  shiftTab?(): void;
  /** Ctrl+B: a running Bash call goes to the background. The line editor moves its cursor back a
   * character too, as it does for Ctrl+B at any time. */
  ctrlB?(): void;
  /** Ctrl+O, which the line editor leaves alone: verbose output on or off. */
  ctrlO?(): void;
  /** Ctrl+T, which the line editor leaves alone: the todo list. */
  ctrlT?(): void;
  /** Ctrl+V, which the line editor leaves alone: an image from the clipboard. */
  ctrlV?(): void;
  /** A bracketed paste is under way (paste.ts): its keys are text, not the chat's keys. */
  pasting?(): boolean;
};

/** Whether `line`, entered at a terminal, goes on to the next line of the same prompt. */
export function continues(line: string): boolean {
  return line.endsWith("\\");
}

/** `line` without the `\` that made it go on. */
export function continuedText(line: string): string {
  return continues(line) ? line.slice(0, -1) : line;
}

/** Acts on the keys of `input` that `editor` (reading it) leaves alone. Answers a function that stops. */
export function watchKeys(input: NodeJS.ReadableStream, editor: Interface, actions: KeyActions): () => void {
  /** When Esc was last pressed to no effect. */
  let idleEscAt = -Infinity;
  const onKey = (_text: string | undefined, key: { name?: string; sequence?: string; ctrl?: boolean; meta?: boolean; shift?: boolean; code?: string } | undefined) => {
    // The terminal's focus reports (chat/focus.ts) are no keys.
    if (!key || key.code === "[I" || key.code === "[O") return;
    // The editor reads each key first: at a paste's start, it is already under way.
    if (actions.pasting?.() || key.name === "paste-end") return;
    if (key.name === "escape") {
      // Pressed twice quickly, Esc comes as one sequence of two.
      if (key.sequence === "\x1b\x1b" || Date.now() - idleEscAt < DOUBLE_ESC_MS) {
        idleEscAt = -Infinity;
        return actions.doubleEscape();
      }
      if (key.sequence === "\x1b") idleEscAt = actions.escape() ? -Infinity : Date.now();
      return;
    }
    idleEscAt = -Infinity;
    if (key.name === "tab" && key.shift) return actions.shiftTab?.();
    if (key.name === "b" && key.ctrl && !key.meta) return actions.ctrlB?.();
    if (key.name === "o" && key.ctrl && !key.meta) return actions.ctrlO?.();
    if (key.name === "t" && key.ctrl && !key.meta) return actions.ctrlT?.();
    if (key.name === "v" && key.ctrl && !key.meta) return actions.ctrlV?.();
    if ((key.name === "return" && key.meta) || key.code === "[13;2u") {
      // A new line from anywhere in the line: what is typed goes on after all of it.
      editor.write(null, { ctrl: true, name: "e" });
      editor.write("\\");
      editor.write(null, { name: "return" });
    }
  };
  input.on("keypress", onKey);
  return () => void input.off("keypress", onKey);
}

/** Takes the line being typed off the editor, whole. */
export function clearLine(editor: Interface): void {
  editor.write(null, { ctrl: true, name: "e" });
  editor.write(null, { ctrl: true, name: "u" });
}
