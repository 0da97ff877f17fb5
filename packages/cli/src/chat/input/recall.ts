// The prompts a chat at a terminal recalls with Up and Ctrl+R: those of earlier chats in the same
// project (history.ts), then its own. The chat says which lines make a prompt: the line editor
// (node:readline) would keep each line entered, a prompt's `\`-ended lines apart and a paste's lines
// one by one, so what it keeps by itself is put back, and the chat's prompts are kept whole.
//
// The editor keeps a prompt of several lines in the form Node's REPL keeps its history in, its lines
// in reverse order split by \r, and recalls it as one line holding them split by \n (drawn one under
// the other). Entered, such a line comes from the editor split by \r: the chat gets it split by \n.
//
// A prompt with pasted text is kept and recalled as Claude Code recalls it: as it was shown, its
// placeholders and all (a 6,000-line paste is not drawn into the line), its texts apart (pastesAt),
// which the chat's bracketed paste sends in their place (paste.ts).
import type { Interface } from "node:readline";
import { isDeepStrictEqual } from "node:util";
import type { HarnessState } from "@harness/protocol";
import { appendHistory, HISTORY_CAP, loadHistory, pastesIn, type LoadedHistory } from "./history.ts";
import { answersApproval } from "../line.ts";
import type { KeptPrompt, RecalledPaste } from "./paste.ts";

export type Recall = {
  /** The editor's `history` option: the prompts to recall, most recent first. */
  history: string[];
  historySize: number;
  /** The texts pasted into the prompt at `index` of the editor's history, if any. */
  pastesAt(index: number): readonly RecalledPaste[] | undefined;
  /** Takes over `editor`'s history (created with `history` and `historySize`). */
  attach(editor: Interface): void;
  /** `prompt` was entered, all its lines, when the session was in `state`; `kept`, as the history
   * keeps it when something was pasted into it (paste.ts). */
  entered(prompt: string, state: HarnessState | undefined, kept?: KeptPrompt): void;
};

/** The editor's form of a prompt (see above). */
const editorForm = (prompt: string) => prompt.split("\n").reverse().join("\r");

/** A prompt kept in the editor's history, as typed. */
export const promptOf = (kept: string) => kept.split("\r").reverse().join("\n");

/** A line the editor handed over, as typed: split by \n. */
const typedLine = (line: string) => line.replaceAll("\r", "\n");

export function openRecall(file: string, project: string, warn: (text: string) => void): Recall {
  const loaded: LoadedHistory = loadHistory(file, project);
  if (loaded.warning) warn(loaded.warning);
  /** The prompts, most recent first, in the editor's form. */
  const prompts = loaded.entries.map(editorForm);
  /** Each prompt's pasted texts, as `prompts` is ordered. */
  const pastes: (RecalledPaste[] | undefined)[] = loaded.entries.map((_, i) => loaded.pastes?.[i]);
  let editor: (Interface & { history: string[] }) | undefined;
  let failed = false;
  return {
    history: prompts.slice(),
    historySize: HISTORY_CAP,
    pastesAt: (index) => pastes[index],
    attach(lines) {
      editor = lines as Interface & { history: string[] };
      // What the editor kept of a line entered is put back at once, in the same turn.
      lines.on("history", (kept: string[]) => kept.splice(0, kept.length, ...prompts));
      const emit = lines.emit.bind(lines) as (event: string | symbol, ...args: unknown[]) => boolean;
      lines.emit = ((event: string | symbol, ...args: unknown[]) => {
        if (event === "line" && typeof args[0] === "string") args[0] = typedLine(args[0]);
        return emit(event, ...args);
      }) as typeof lines.emit;
    },
    entered(prompt, state, kept) {
      // An answer to a call waiting for approval is not a prompt (Claude Code asks in a dialog).
      if (!prompt.trim() || answersApproval(prompt, state)) return;
      const pasted = kept ? pastesIn(kept.display, kept.pastedContents) : [];
      const form = editorForm(pasted.length > 0 ? kept!.display : prompt);
      // The same prompt again in a row is kept once.
      if (prompts[0] === form && isDeepStrictEqual(pastes[0] ?? [], pasted)) return;
      prompts.unshift(form);
      pastes.unshift(pasted.length > 0 ? pasted : undefined);
      if (prompts.length > HISTORY_CAP) (prompts.pop(), pastes.pop());
      editor?.history.splice(0, editor.history.length, ...prompts);
      const problem = appendHistory(file, project, kept ?? prompt, loaded);
      // Said once: a history that cannot be written stays so.
      if (problem && !failed) warn(problem);
      failed ||= problem !== undefined;
    },
  };
}
