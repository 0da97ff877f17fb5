// The prompts typed into `harness chat` at a terminal, kept for later chats in the same project, as
// Claude Code keeps its own: history.jsonl in the user's configuration directory (user-config-dir.ts),
// one JSON object a line, `{ display, pastedContents, timestamp, project }`, for every project. The
// format is Claude Code's, so the two share their prompts.
//
// A prompt is appended in one write to a file opened for appending: chats (and Claude Code) writing at
// the same time lose none of each other's lines. The file is never rewritten; a chat reads the latest
// HISTORY_CAP prompts of its project. It is created readable by its owner only: prompts may hold secrets.
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { userConfigDir } from "@harness/agent/user-config-dir";

/** How many prompts of a project a chat recalls. */
export const HISTORY_CAP = 1_000;

export type LoadedHistory = {
  /** The project's prompts, most recent first, the same prompt entered again in a row kept once. */
  entries: string[];
  /** What the user is told once: lines or a file that could not be read. */
  warning?: string;
  /** The file is not a prompt history: the chat does not write to it. */
  foreign?: true;
};

type Env = Readonly<Record<string, string | undefined>>;

export function historyFile(home: string, env: Env): string {
  return join(userConfigDir(home, env), "history.jsonl");
}

/** A line of the file, when it is a prompt: its text and project. */
function entryOf(line: string): { display: string; project: string } | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null) return undefined;
    const { display, project } = value as Record<string, unknown>;
    return typeof display === "string" && typeof project === "string" ? { display, project } : undefined;
  } catch {
    return undefined;
  }
}

export function loadHistory(file: string, project: string, cap = HISTORY_CAP): LoadedHistory {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [] };
    return { entries: [], warning: `cannot read the prompt history ${file}: ${(error as Error).message}` };
  }
  const entries: string[] = [];
  let bad = 0;
  let good = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const entry = entryOf(line);
    if (!entry) {
      bad++;
      continue;
    }
    good++;
    if (entry.project === project && entry.display.trim() && entries.at(-1) !== entry.display) entries.push(entry.display);
  }
  if (bad > 0 && good === 0) return { entries: [], warning: `${file} is not a prompt history (not JSON lines); the chat neither reads nor writes it`, foreign: true };
  const latest = entries.slice(-cap).reverse();
  if (bad === 0) return { entries: latest };
  return { entries: latest, warning: `${file}: ${bad} line${bad === 1 ? " is" : "s are"} not prompts of the history; skipped` };
}

/** Appends `prompt` to the history of `project`; answers what went wrong, if anything. `loaded`: what
 * the chat read of the file at its start (a foreign file is left alone). */
export function appendHistory(file: string, project: string, prompt: string, loaded?: LoadedHistory, now = Date.now()): string | undefined {
  if (loaded?.foreign || !prompt.trim()) return undefined;
  const line = `${JSON.stringify({ display: prompt, pastedContents: {}, timestamp: now, project })}\n`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    appendFileSync(file, line, { mode: 0o600 });
    return undefined;
  } catch (error) {
    return `cannot keep the prompt in ${file}: ${(error as Error).message}`;
  }
}
