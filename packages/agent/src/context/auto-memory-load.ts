// What auto memory (auto-memory.ts) puts before the model: MEMORY.md, the directory's index, with
// the other memory files, cut to Claude Code's caps; and, in the system prompt, what the directory
// is for and how to keep it.
import { readConfigFile } from "../config/files.ts";
import path from "node:path";
import type { MemoryFile } from "./types.ts";

export const AUTO_MEMORY_INDEX = "MEMORY.md";
/** The directory's folder of archived notes: never loaded, searched on demand. */
export const AUTO_MEMORY_ARCHIVE = "archive";
export const MAX_AUTO_MEMORY_LINES = 200;
export const MAX_AUTO_MEMORY_BYTES = 25_000;

/** The directory's MEMORY.md as a memory file (scope "auto"), trimmed and cut to the caps; undefined
 * when it is missing, empty or cannot be read (the model can still write one). */
export async function loadAutoMemory(dir: string): Promise<MemoryFile | undefined> {
  const file = path.join(dir, AUTO_MEMORY_INDEX);
  let text: string;
  try {
    text = (await readConfigFile(file)).toString("utf8");
  } catch {
    // Missing is the usual case; a directory or unreadable file there is the model's to fix.
    return undefined;
  }
  const content = cutToCaps(text.trim());
  return content ? { path: file, scope: "auto", content } : undefined;
}

/** The first 200 lines, then at most 25,000 bytes ending at a line's end, with a line that says
 * what was left out, so the model tidies the index rather than trusting it is whole. */
export function cutToCaps(text: string): string {
  const lines = text.split("\n");
  const bytes = Buffer.byteLength(text);
  const tooLong = lines.length > MAX_AUTO_MEMORY_LINES;
  const tooBig = bytes > MAX_AUTO_MEMORY_BYTES;
  if (!tooLong && !tooBig) return text;
  let kept = tooLong ? lines.slice(0, MAX_AUTO_MEMORY_LINES).join("\n") : text;
  while (Buffer.byteLength(kept) > MAX_AUTO_MEMORY_BYTES) {
    const end = kept.lastIndexOf("\n");
    // One line longer than the cap: cut inside it, at a character's boundary.
    kept = end > 0 ? kept.slice(0, end) : Buffer.from(kept).subarray(0, MAX_AUTO_MEMORY_BYTES).toString("utf8").replace(/\uFFFD$/, "");
  }
  const why = [
    ...(tooLong ? [`${lines.length} lines (only the first ${MAX_AUTO_MEMORY_LINES} are loaded)`] : []),
    ...(tooBig ? [`${bytes} bytes, over the ${MAX_AUTO_MEMORY_BYTES}-byte limit`] : []),
  ].join(" and ");
  return `${kept}\n\n> WARNING: ${AUTO_MEMORY_INDEX} is ${why}, so only part of it was loaded. Keep it a short index: one line per note, details in the topic files.`;
}

/** The system prompt's section on the auto memory directory `dir`. */
export function autoMemoryInstructions(dir: string): string {
  const shown = dir.endsWith("/") ? dir : `${dir}/`;
  return `# auto memory
You have a persistent memory directory of your own at ${shown} (Write creates it when it does not exist). What you save there is here for you in later conversations about this project, so that you need not learn again who the user is, how they like to work, what they corrected or confirmed, and the context behind their work.

If the user asks you to remember something, save it at once. If they ask you to forget something, find it and remove it.

## What to save
- The user: their role, expertise and preferences that shape how you should help.
- Feedback: what the user corrected or approved in how you work, with why, so you repeat what worked and avoid what did not.
- The project: decisions, deadlines, who does what and why, when the code and its history do not say so. Write dates as absolute dates.
- References: where information lives outside the project (dashboards, trackers, documents).

## What not to save
- What the code, the git history or the CLAUDE.md files already say (structure, conventions, who changed what).
- The details of the current task, work in progress, or anything true only for this conversation.
- Guesses not yet checked, and anything secret (keys, passwords, tokens).

## How to save
1. Write each note to its own Markdown file in the directory, named for its topic (e.g. user_role.md, feedback_testing.md). Update an existing note rather than writing a duplicate.
2. Add a one-line pointer to it in ${AUTO_MEMORY_INDEX}: \`- [Title](file.md) - what it is about\`. ${AUTO_MEMORY_INDEX} is the index, not a note: keep each line short (about 150 characters) and never put a note's content in it. Only its first ${MAX_AUTO_MEMORY_LINES} lines (and ${MAX_AUTO_MEMORY_BYTES} bytes) are loaded into each conversation; remove pointers to notes that are wrong or out of date.

## Using it
${AUTO_MEMORY_INDEX} is shown to you with the other memory files; read a topic file when its pointer looks relevant to the task. A note records what was true when it was written: if it names a file, a function or a flag, check that it still exists before relying on it, and fix or remove notes that turn out wrong.

## The archive
${AUTO_MEMORY_ARCHIVE}/ in the directory holds notes filed away for the long term, one a file (${AUTO_MEMORY_ARCHIVE}/<id>.md, its front matter giving its id, created_at and metadata). They are not shown to you and not listed in ${AUTO_MEMORY_INDEX}: search them with Grep (or list them with Glob) when the task may touch on what they record, such as past decisions or how things were done before. To archive a note, write it there in the same form.`;
}
