// After a compaction the model keeps the summary but loses what it read: the files it worked with
// last come back with the summary, as they are now, as Claude Code gives them back, so the work
// in progress goes on without reading them all again.
import fs from "node:fs/promises";
import { shownPath } from "../permissions/paths.ts";
import { remember, snapshotFile } from "../tools/file-state.ts";
import { numberedLine } from "../tools/numbered-line.ts";
import type { ToolState } from "../tools/state.ts";

/** How many of the files worked with last come back. */
export const RECENT_FILES = 5;
/** The most of one file that comes back; the model reads the rest when it needs it. */
export const MAX_RECENT_FILE_CHARS = 20_000;
/** The most of all of them together. */
export const MAX_RECENT_FILES_CHARS = 50_000;
/** Larger files are not read for this at all. */
const MAX_RECENT_FILE_BYTES = 1024 * 1024;

export type RecentFile = { path: string; text: string; truncated: boolean };

/** The files of `state` worked with last (read or written, newest first), as they are now, with
 * line numbers as Read shows them; files that are gone, not text, too large or `denied` are left
 * out. Each one given back counts as read again, as it now is. Never rejects. */
export async function recentFiles(state: ToolState, denied?: (tool: string, file: string) => boolean): Promise<RecentFile[]> {
  const candidates = [...state.files.keys()].reverse();
  const files: RecentFile[] = [];
  let budget = MAX_RECENT_FILES_CHARS;
  for (const file of candidates) {
    if (files.length >= RECENT_FILES || budget <= 0) break;
    if (denied?.("Read", file)) continue;
    const bytes = await textBytesOf(file);
    if (bytes === undefined) continue;
    const numbered = withLineNumbers(bytes.toString("utf8"), Math.min(MAX_RECENT_FILE_CHARS, budget));
    if (numbered.text === "" && numbered.truncated) continue;
    budget -= numbered.text.length;
    files.push({ path: file, ...numbered });
    remember(state, file, await snapshotFile(state, file, bytes));
  }
  return files;
}

/** The files as one reminder for the model; "" when there are none. */
export function recentFilesText(files: readonly RecentFile[], cwd: string): string {
  if (files.length === 0) return "";
  const sections = files.map((file) => {
    const shown = shownPath(file.path, cwd);
    const note = file.truncated ? `\n(The rest of ${shown} is not shown; read it when you need it.)` : "";
    return `Contents of ${shown}, as it is now:\n${file.text}${note}`;
  });
  return `The conversation was compacted. These are the files worked with most recently, as they are now (what they held earlier may differ):\n\n${sections.join("\n\n")}`;
}

async function textBytesOf(file: string): Promise<Buffer | undefined> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_RECENT_FILE_BYTES) return undefined;
    const bytes = await fs.readFile(file);
    return bytes.includes(0) ? undefined : bytes;
  } catch {
    return undefined;
  }
}

/** `text` as Read numbers it (`     1\tline`), whole lines up to `max` characters. */
function withLineNumbers(text: string, max: number): { text: string; truncated: boolean } {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  let out = "";
  for (let i = 0; i < lines.length; i++) {
    const line = `${numberedLine(i + 1, lines[i]!)}\n`;
    if (out.length + line.length > max) return { text: out.trimEnd(), truncated: true };
    out += line;
  }
  return { text: out.trimEnd(), truncated: false };
}
