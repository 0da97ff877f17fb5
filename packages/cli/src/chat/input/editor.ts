// Keys of `harness chat` at a terminal for a prompt of several lines, as Claude Code has them:
// Ctrl+J puts a line break in the prompt at the cursor (the editor, node:readline, would send the
// line), and Ctrl+G opens the prompt in the user's editor ($VISUAL, else $EDITOR, else vi), whose
// text, once it exits, is the line, to edit further or send with Enter. A line break in the line is
// part of the prompt, as a short paste's are: the text goes in through paste.ts, which hands the
// line over with its breaks where they stand.
//
// The keys are taken before the line editor reads them, through its `_ttyWrite` (as search.ts
// takes them); a raw terminal sends Enter as "\r" and Ctrl+J as "\n". "?" typed with no prompt begun
// lists the chat's keys instead, as Claude Code's "? for shortcuts" does. Ctrl+S puts the prompt
// being typed aside (Claude Code's stash): it comes back on the line once the next prompt is sent.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Interface } from "node:readline";

type Key = { name?: string; ctrl?: boolean; meta?: boolean; sequence?: string };
type Editor = Interface & { _ttyWrite(text: string | undefined, key?: Key): void; _refreshLine(): void; line: string; cursor: number };
type Terminal = NodeJS.ReadableStream & { setRawMode?(raw: boolean): unknown; isRaw?: boolean };

export type PromptEditing = {
  /** The prompt as typed so far: its earlier lines (those that went on, without their `\`), taken
   * off the chat, which the editor's text replaces. */
  takeEarlier(): string[];
  /** Tells the user something (an editor that failed, a prompt stashed). */
  note(text: string, tone?: "info" | "error"): void;
  /** A bracketed paste is under way: its keys are text. */
  pasting(): boolean;
  /** Puts text in at the cursor, line breaks and all (paste.ts's `type`). */
  type(text: string): void;
  /** "?" typed with no prompt begun: the chat's keys are listed, and the "?" is not typed. */
  shortcuts?(): boolean;
  /** Why the editor cannot be opened now (a run under way), or undefined when it can. */
  busy?(): string | undefined;
  /** Whether `line`, handed over, goes on to the next line of the same prompt (keys.ts). */
  goesOn(line: string): boolean;
  /** Turns off, while the editor runs, the terminal modes the chat asked for that the editor may not
   * know (focus reports); answers what turns them back on. */
  aside?(): () => void;
};

/** The command that edits a file: `$VISUAL`, else `$EDITOR`, else `vi` (a shell command line). */
export function editorCommand(env: NodeJS.ProcessEnv): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || "vi";
}

/** Ctrl+J, Ctrl+G, Ctrl+S and "?" for `editor`, reading the raw terminal `input`. Answers a
 * function that stops. */
export function promptEditing(editor: Interface, input: Terminal, env: NodeJS.ProcessEnv, o: PromptEditing): () => void {
  const rl = editor as Editor;
  const ttyWrite = rl._ttyWrite;
  rl._ttyWrite = (text: string | undefined, key: Key = {}) => {
    if (o.pasting() || key.meta) return ttyWrite.call(rl, text, key);
    if (key.name === "enter" && key.sequence === "\n" && input.isRaw) return o.type("\n");
    if (editing) return;
    if (key.ctrl && key.name === "g") return void edit();
    if (text === "?" && !key.ctrl && rl.line === "" && o.shortcuts?.()) return;
    if (key.ctrl && key.name === "s") return stashKey();
    ttyWrite.call(rl, text, key);
  };
  let editing = false;
  const edit = async () => {
    // The chat would draw a run's output (and its working row) over the editor's screen.
    const busy = o.busy?.();
    if (busy) return o.note(`(${busy})`);
    const command = editorCommand(env);
    const typed = [...o.takeEarlier(), rl.line].join("\n");
    let dir: string | undefined;
    let back: (() => void) | undefined;
    editing = true;
    try {
      // In here: a temporary directory that cannot be written is said, the prompt kept.
      dir = mkdtempSync(join(tmpdir(), "harness-prompt-"));
      const file = join(dir, "prompt.md");
      writeFileSync(file, typed, { mode: 0o600 });
      // The editor has the terminal's keys to itself, in the mode the terminal had before the chat.
      // The chat goes on meanwhile (not synchronously: its connection answers the server's pings).
      rl.pause();
      input.setRawMode?.(false);
      back = o.aside?.();
      const child = spawn(`${command} "$HARNESS_PROMPT_FILE"`, { shell: true, stdio: "inherit", env: { ...env, HARNESS_PROMPT_FILE: file } });
      const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => child.once("error", reject).once("exit", (code, sig) => resolve([code, sig])));
      if (status !== 0) {
        const why = status === null ? `was stopped by ${signal}` : `exited with status ${status}`;
        return put(typed, `the editor (${command}) ${why}: the prompt is as it was`);
      }
      put(readFileSync(file, "utf8").replace(/\r\n?/g, "\n").replace(/\n+$/, ""));
    } catch (error) {
      put(typed, `the prompt could not be edited: ${(error as Error).message}`);
    } finally {
      back?.();
      input.setRawMode?.(true);
      rl.resume();
      editing = false;
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }
  };
  /** The prompt Ctrl+S put aside, as typed (its earlier lines joined by line breaks). */
  let stash: string | undefined;
  const stashKey = () => {
    const typed = [...o.takeEarlier(), rl.line].join("\n");
    if (typed.trim()) {
      stash = typed;
      o.note("(prompt stashed: it comes back once the next prompt is sent, or with Ctrl+S on an empty line)");
      return put("");
    }
    if (stash === undefined) return o.note("(nothing to stash: Ctrl+S puts the prompt being typed aside)");
    put(stash);
    stash = undefined;
  };
  // A prompt sent (its last line handed over), the stash comes back on the line, once the editor
  // has cleared it.
  const onLine = (line: string) => {
    if (stash === undefined || o.goesOn(line)) return;
    const back = stash;
    stash = undefined;
    setImmediate(() => put(back));
  };
  editor.on("line", onLine);
  /** `text` is the line, the cursor at its end; `why`, said first, tells what went wrong. */
  const put = (text: string, why?: string) => {
    if (why) o.note(`✗ ${why}`, "error");
    rl.line = "";
    rl.cursor = 0;
    if (text) o.type(text);
    else rl._refreshLine();
  };
  return () => {
    rl._ttyWrite = ttyWrite;
    editor.off("line", onLine);
  };
}
