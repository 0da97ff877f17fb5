// The prompts typed into `harness chat` at a terminal, kept for later chats in the same project, as
// Claude Code keeps its own: history.jsonl in the user's configuration directory (user-config-dir.ts),
// one JSON object a line, `{ display, pastedContents, timestamp, project }`, for every project. The
// format is Claude Code's, so the two share their prompts: a prompt with pasted text comes back, as
// Claude Code recalls it, as its `display`, placeholders and all, their texts apart (see pastesIn).
//
// A prompt is appended in one write to a file opened for appending: chats (and Claude Code) writing at
// the same time lose none of each other's lines. The file is never rewritten, so it only grows (it holds
// every project's prompts): a chat reads it from its end, back to the latest HISTORY_CAP prompts of
// its project or TAIL_BYTES, whichever comes first. It is created readable by its owner only: prompts
// may hold secrets.
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import { userConfigDir } from "@harness/agent/user-config-dir";
import type { KeptPrompt, RecalledPaste } from "./paste.ts";
import { printable } from "../../display/render.ts";

/** How many prompts of a project a chat recalls. */
export const HISTORY_CAP = 1_000;
/** How much of the file's end a chat reads at most: many thousands of prompts, read in milliseconds. */
export const TAIL_BYTES = 8 * 1024 * 1024;
const CHUNK = 256 * 1024;

export type LoadedHistory = {
  /** The project's prompts as shown (their `display`), most recent first, the same prompt entered
   * again in a row kept once. */
  entries: string[];
  /** The texts pasted into the prompts that have them, by their index in `entries`. */
  pastes?: Record<number, RecalledPaste[]>;
  /** What the user is told once: lines or a file that could not be read. */
  warning?: string;
  /** The file is not a prompt history: the chat does not write to it. */
  foreign?: true;
};

type Env = Readonly<Record<string, string | undefined>>;

export function historyFile(home: string, env: Env): string {
  return join(userConfigDir(home, env), "history.jsonl");
}

/** A line of the file, when it is a prompt: its text and project. The text keeps no control
 * characters but tabs and line ends: it is drawn on the terminal when recalled, and the file may
 * come from elsewhere. */
function entryOf(line: string): { display: string; pastes: RecalledPaste[]; project: string } | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null) return undefined;
    const { display, project, pastedContents } = value as Record<string, unknown>;
    if (typeof display !== "string" || typeof project !== "string") return undefined;
    const shown = printable(display);
    return { display: shown, pastes: pastesIn(shown, pastedContents), project };
  } catch {
    return undefined;
  }
}

/** Claude Code writes a pasted text into `display` as a placeholder, "[Pasted text #1 +12 lines]"
 * ("[Pasted text #1]" for one line), and the text in `pastedContents`: {"1": {"id": 1, "type":
 * "text", "content": "…"}}. The texts of the placeholders in `display`, in order: the prompt recalled
 * sends them in their place (paste.ts). An image's placeholder ("[Image #2]") has none, nor one
 * whose text is not there (kept elsewhere by hash): they are only text. */
const PASTED_TEXT = /\[Pasted text #(\d+)(?: \+\d+ lines?)?\]/g;

export function pastesIn(display: string, pastedContents: unknown): RecalledPaste[] {
  if (typeof pastedContents !== "object" || pastedContents === null) return [];
  const pasted = pastedContents as Record<string, unknown>;
  const found = new Map<number, RecalledPaste>();
  for (const [placeholder, id] of display.matchAll(PASTED_TEXT)) {
    const paste = Object.hasOwn(pasted, id) ? pasted[id] : undefined;
    if (typeof paste !== "object" || paste === null || found.has(Number(id))) continue;
    const { type, content } = paste as Record<string, unknown>;
    if (type === "text" && typeof content === "string") found.set(Number(id), { id: Number(id), placeholder, content: printable(content) });
  }
  return [...found.values()];
}

/** The prompt `display` stands for, the placeholders of `pastes` expanded to their texts. */
export function expanded(display: string, pastes: Iterable<{ placeholder: string; content: string }>): string {
  let text = display;
  for (const paste of pastes) text = text.replaceAll(paste.placeholder, () => paste.content);
  return text;
}

/** The whole lines of the last `limit` bytes of `file`, the last first, read a chunk at a time for
 * as long as `more` says. */
function* linesFromEnd(file: string, limit: number, more: () => boolean): Generator<string> {
  const fd = openSync(file, "r");
  try {
    let end = fstatSync(fd).size;
    const stop = Math.max(0, end - limit);
    /** The line the reading is in: its parts read so far, which the chunks before complete. */
    let parts: Buffer[] = [];
    while (end > stop && more()) {
      const from = Math.max(stop, end - CHUNK);
      const chunk = Buffer.alloc(end - from);
      const read = readSync(fd, chunk, 0, chunk.length, from);
      end = from;
      /** The last line end before `at` (a negative offset would search from the end). */
      const lineEnd = (at: number) => (at > 0 ? chunk.lastIndexOf(10, at - 1) : -1);
      let last = read;
      for (let at = lineEnd(last); at !== -1; at = lineEnd(last)) {
        yield Buffer.concat([chunk.subarray(at + 1, last), ...parts]).toString("utf8");
        parts = [];
        last = at;
        if (!more()) return;
      }
      parts.unshift(chunk.subarray(0, last));
      // The first line read is whole only at the start of the file: one cut short is left.
      if (from === 0) yield Buffer.concat(parts).toString("utf8");
    }
  } finally {
    closeSync(fd);
  }
}

export function loadHistory(file: string, project: string, cap = HISTORY_CAP): LoadedHistory {
  /** Most recent first. */
  const entries: string[] = [];
  const pastes: Record<number, RecalledPaste[]> = {};
  /** The latest entry's prompt, expanded. */
  let latest: string | undefined;
  let bad = 0;
  let good = 0;
  try {
    for (const line of linesFromEnd(file, TAIL_BYTES, () => entries.length < cap)) {
      if (!line.trim()) continue;
      const entry = entryOf(line);
      if (!entry) {
        bad++;
        continue;
      }
      good++;
      if (entry.project !== project || !entry.display.trim()) continue;
      // The same prompt entered again in a row is kept once.
      const prompt = expanded(entry.display, entry.pastes);
      if (prompt === latest) continue;
      latest = prompt;
      if (entry.pastes.length > 0) pastes[entries.length] = entry.pastes;
      entries.push(entry.display);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [] };
    return { entries: [], warning: `cannot read the prompt history ${file}: ${(error as Error).message}` };
  }
  if (bad > 0 && good === 0) return { entries: [], warning: `${file} is not a prompt history (not JSON lines); the chat neither reads nor writes it`, foreign: true };
  const loaded = Object.keys(pastes).length > 0 ? { entries, pastes } : { entries };
  if (bad === 0) return loaded;
  return { ...loaded, warning: `${file}: ${bad} line${bad === 1 ? " is" : "s are"} not prompts of the history; skipped` };
}

/** Appends `prompt` to the history of `project`; answers what went wrong, if anything. `prompt` is
 * its text, or its text with placeholders and the texts pasted (paste.ts). `loaded`: what the
 * chat read of the file at its start (a foreign file is left alone). */
export function appendHistory(file: string, project: string, prompt: string | KeptPrompt, loaded?: LoadedHistory, now = Date.now()): string | undefined {
  const { display, pastedContents } = typeof prompt === "string" ? { display: prompt, pastedContents: {} } : prompt;
  if (loaded?.foreign || !display.trim()) return undefined;
  const line = `${JSON.stringify({ display, pastedContents, timestamp: now, project })}\n`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    appendFileSync(file, line, { mode: 0o600 });
    return undefined;
  } catch (error) {
    return `cannot keep the prompt in ${file}: ${(error as Error).message}`;
  }
}
