// Tab in `harness chat` at a terminal, as Claude Code completes what its user types: after "/" at
// the start of the line, the commands the session can run; on a word starting with "@", a path of
// the project (complete-paths.ts). The line editor (node:readline) calls the completer with
// the line up to the cursor and puts in what it answers: the one candidate, or what all of them
// start with. A Tab that can add nothing lists the candidates instead, above the typed line, the
// way the chat prints anything (the editor's own list would land where the chat's typed line is
// kept, see input-line.ts).
import { commandNames, type CommandPlace, type RanCommands } from "./complete-commands.ts";
import { completeListedPath, completePath, inOrder, type ListFiles } from "./complete-paths.ts";

export type CompleteSources = {
  /** What may follow "/" (without it), the chat's own commands included. */
  commands(): Promise<readonly string[]>;
  /** The directory a mentioned path is relative to: the project. */
  cwd: string;
  home?: string;
  /** The project's files when they are not in `cwd` (a session's workspace on a shared server). */
  files?: ListFiles;
};

/** The longest @word completed (PATH_MAX on Linux). */
const MENTION_MAX = 4_096;

/** The candidates for the word before the cursor, and that word ("" for none), as typed. Once
 * `signal` aborts, the search of the paths stops. */
export async function completions(line: string, sources: CompleteSources, signal?: AbortSignal): Promise<{ candidates: string[]; word: string }> {
  const command = /^\/(\S*)$/.exec(line);
  if (command) {
    const names = await sources.commands();
    const candidates = [...new Set(names)].filter((name) => name.startsWith(command[1])).sort().map((name) => `/${name}`);
    return { candidates, word: line };
  }
  // A mention starts after whitespace, and goes on over spaces behind a backslash. Only the line's
  // end is looked at: the search is quadratic in what it scans (a long pasted line with many
  // escaped spaces would hold the chat), and no path is longer.
  const tail = line.slice(-MENTION_MAX - 1);
  const mention = (tail.length < line.length ? /\s(@(?:[^\s\\]|\\ )*\\?)$/ : /(?:^|\s)(@(?:[^\s\\]|\\ )*\\?)$/).exec(tail);
  if (mention) {
    const word = mention[1];
    const typed = word.slice(1);
    const paths = sources.files ? await completeListedPath(typed, sources.files, signal) : await completePath(typed, sources.cwd, sources.home, signal);
    return { candidates: paths.map((path) => `@${path}`), word };
  }
  return { candidates: [], word: "" };
}

type Callback = (error: Error | null, result?: [string[], string]) => void;

export type Completer = (line: string, callback: Callback) => void;

/** How long a Tab looks for its candidates: the line editor holds the keys typed meanwhile. */
const COMPLETE_MS = 1_500;

/** A completer for node:readline. `list` gets the candidates when a Tab can add nothing to the word;
 * while `skip()` says so as the candidates are found, the Tab does nothing. A Tab whose candidates
 * are not found within `waitMs` (the commands read meanwhile serve the next), or cannot be found,
 * does nothing either: the completer never answers an error. */
export function createCompleter(sources: CompleteSources, list: (candidates: readonly string[]) => void, skip = () => false, waitMs = COMPLETE_MS): Completer {
  return (line, callback) => {
    const signal = AbortSignal.timeout(waitMs);
    beforeAbort(completions(line, sources, signal), signal, { candidates: [], word: line }).then(({ candidates, word }) => {
      if (skip()) return callback(null, [[], word]);
      if (candidates.length === 1 && candidates[0] !== word) {
        // A command or a file, complete: a space after it (a folder's path goes on).
        const [only] = candidates;
        return callback(null, [[only.endsWith("/") ? only : `${only} `], word]);
      }
      if (candidates.length > 1 && gains(commonStart(candidates), word)) return callback(null, [candidates, word]);
      if (candidates.length > 1) list(candidates);
      callback(null, [[], word]);
      // Completion is a convenience: one that fails does nothing (the editor would print the error
      // into the typed line).
    }, () => callback(null, [[], line]));
  };
}

/** What `promise` resolves to, or `late` once `signal` aborts before it does. A read of the disk
 * cannot be stopped halfway (a folder on a network mount that hangs), nor can the reading of the
 * commands; the Tab cannot wait for them. */
function beforeAbort<T>(promise: Promise<T>, signal: AbortSignal, late: T): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(late);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Whether `start` (what the candidates all start with) says more than `word`: longer, and still
 * holding what was typed in order (a fuzzy match's candidates may share less than was typed). */
function gains(start: string, word: string): boolean {
  return start.length > word.length && inOrder(word.toLowerCase(), start.toLowerCase());
}

function commonStart(texts: readonly string[]): string {
  let start = texts[0];
  for (const text of texts) while (!text.startsWith(start)) start = start.slice(0, -1);
  return start;
}

/** At most this many candidates are listed. */
const LISTED = 50;

/** `candidates` in columns across a terminal `width` wide (as a shell lists them), filled column
 * by column; past LISTED, how many more there are. */
export function listed(candidates: readonly string[], width: number): string {
  const shown = candidates.slice(0, LISTED);
  const cell = Math.max(...shown.map((c) => c.length)) + 2;
  const perRow = Math.max(1, Math.floor((width + 2) / cell));
  const rows = Math.ceil(shown.length / perRow);
  const lines = Array.from({ length: rows }, (_, row) => {
    const cells = [];
    for (let at = row; at < shown.length; at += rows) cells.push(shown[at]);
    return cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(cell) : c)).join("");
  });
  if (candidates.length > LISTED) lines.push(`… and ${candidates.length - LISTED} more`);
  return lines.join("\n");
}

/** `completer` for the line editor; `hint(line)`: what to show after a line that is a command's
 * name and a space, with nothing typed after it yet (the command's argument-hint), if anything. */
export type ChatCompletion = {
  completer: Completer;
  hint(line: string): string | undefined;
  /** The commands Tab completes after "/" (without it): the chat's own and the agent's. */
  commands(): Promise<readonly string[]>;
  stop(): void;
};

/** The completer of a chat at a terminal whose keys come from `input`. `local`: the chat's project is
 * on this machine; else `files` lists the session's own (on its server). `ran`, the commands the
 * session's last run said it had (see complete-commands.ts). `note` prints the candidates
 * listed, `columns` is the terminal's width. */
export function chatCompletion(
  input: NodeJS.ReadableStream,
  o: CommandPlace & { local: boolean; files?: ListFiles; ran: RanCommands },
  note: (text: string) => void,
  columns: () => number | undefined,
): ChatCompletion {
  // The line editor takes Shift+Tab for a Tab too, but it is the permission modes' key (keys.ts):
  // the key is seen here before the candidates are, which are always found asynchronously.
  let shiftTab = false;
  const onKey = (_text: string | undefined, key: { name?: string; shift?: boolean } | undefined) => void (shiftTab = key?.name === "tab" && key.shift === true);
  input.on("keypress", onKey);
  const commands = commandNames(o.local ? { cwd: o.cwd, home: o.home, pluginDirs: o.pluginDirs } : undefined, o.ran);
  const sources = { commands, cwd: o.cwd, home: o.home, ...(!o.local && o.files && { files: o.files }) };
  const completer = createCompleter(sources, (candidates) => note(listed(candidates, columns() || 80)), () => shiftTab);
  const hint = (line: string) => {
    const name = /^\/(\S+) $/.exec(line)?.[1];
    return name === undefined ? undefined : commands.hint(name);
  };
  return { completer, hint, commands, stop: () => void input.off("keypress", onKey) };
}
