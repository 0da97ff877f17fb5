// Read-before-write: the agent may only change an existing file it has read, and only while the
// file is still as it was read. This keeps it from overwriting work it has not seen (the user's,
// a formatter's, another tool's). Without a ToolState nothing is tracked and nothing is refused.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { makeDirs } from "../files/make-dirs.ts";
import { formatBytes, specialFileProblem } from "./paths.ts";
import type { FileSnapshot, ToolState } from "./state.ts";

/** The largest file Edit, MultiEdit and NotebookEdit take whole (its text must fit in one string). */
export const MAX_WHOLE_FILE_BYTES = 256 * 1024 * 1024;

/** A file's whole content, for a tool that changes it. A directory or a missing file fails as
 * fs.readFile does (EISDIR, ENOENT); a named pipe, socket or device, or a file too large to hold
 * as text, fails with a message that says so. */
export async function readWholeFile(file: string, shown: string, maxBytes = MAX_WHOLE_FILE_BYTES): Promise<Buffer> {
  const stat = await fs.stat(file);
  const special = specialFileProblem(stat, shown);
  if (special) throw new Error(special);
  if (stat.isFile() && stat.size > maxBytes) {
    throw new Error(`${shown} is ${formatBytes(stat.size)}, more than the ${formatBytes(maxBytes)} a file may have to be changed whole; change it through Bash (sed, for example)`);
  }
  return fs.readFile(file);
}

export const NOT_READ_MESSAGE = "File has not been read yet. Read it first before writing to it.";
export const MODIFIED_MESSAGE =
  "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

export function hashOf(content: Buffer | string): string {
  return createHash("sha256").update(content).digest("hex");
}

/** `file` as it is now, for `remember`; undefined without a state or when it cannot be read.
 * `content` is its current content when the caller has it; otherwise the file is read for its hash
 * (when small enough). */
export async function snapshotFile(state: ToolState | undefined, file: string, content?: Buffer | string): Promise<FileSnapshot | undefined> {
  if (!state) return undefined;
  try {
    const stat = await fs.stat(file);
    let hash: string | undefined;
    if (stat.isFile() && stat.size <= state.limits.maxHashBytes) hash = hashOf(content ?? (await fs.readFile(file)));
    return { mtimeMs: stat.mtimeMs, size: stat.size, ...(hash !== undefined && { hash }) };
  } catch {
    return undefined;
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A file's bytes as text, for a tool that writes the text back: refused when they are not UTF-8,
 * since writing the decoded text back would change bytes nobody asked to change. */
export function editableText(bytes: Buffer, shown: string): { ok: true; text: string; bom: string } | { ok: false; error: string } {
  try {
    // `text` without a byte-order mark, which the edit never sees; `bom` puts it back on write.
    const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? "\uFEFF" : "";
    return { ok: true, text: strictUtf8.decode(bytes), bom };
  } catch {
    return {
      ok: false,
      error: `${shown} is not UTF-8 text (in another encoding, such as Latin-1, or with binary content), and editing it here would rewrite its other bytes too. Change it through Bash instead (sed, or iconv to convert it first).`,
    };
  }
}

/** Records that the agent has seen `file` as `snapshot` describes it. The files stay in the order
 * they were last seen in, the latest last (see compaction/recent-files.ts). */
export function remember(state: ToolState | undefined, file: string, snapshot: FileSnapshot | undefined): void {
  if (!state) return;
  state.files.delete(file);
  if (snapshot) state.files.set(file, snapshot);
}

/** Why the agent may not write over `file` now, or undefined when it may: the file does not exist,
 * or it was read and has not changed since. `current` is the file's content when the caller has
 * already read it. Callers have refused pipes and devices already (readWholeFile, Write's stat). */
export async function refuseWrite(state: ToolState | undefined, file: string, current?: Buffer): Promise<string | undefined> {
  if (!state) return undefined;
  let stat;
  try {
    stat = await fs.stat(file);
  } catch {
    return undefined; // A new file needs no read; other failures are reported by the write itself.
  }
  if (!stat.isFile()) return undefined;
  const seen = state.files.get(file);
  if (!seen) return NOT_READ_MESSAGE;
  if (stat.mtimeMs === seen.mtimeMs && stat.size === seen.size) return undefined;
  // A changed time alone (a touch, a checkout of the same content) is not a change.
  if (seen.hash !== undefined && stat.size === seen.size && stat.size <= state.limits.maxHashBytes) {
    const bytes = current ?? (await fs.readFile(file).catch(() => undefined));
    if (bytes && hashOf(bytes) === seen.hash) return undefined;
  }
  return MODIFIED_MESSAGE;
}

/** Runs `work` after every earlier call for the same file has finished, so that two edits of one
 * file in the same reply do not overwrite each other. */
export async function withFileLock<T>(state: ToolState | undefined, file: string, work: () => Promise<T>): Promise<T> {
  if (!state) return work();
  const previous = state.fileLocks.get(file) ?? Promise.resolve();
  const run = previous.then(work);
  const done = run.then(
    () => undefined,
    () => undefined,
  );
  state.fileLocks.set(file, done);
  try {
    return await run;
  } finally {
    if (state.fileLocks.get(file) === done) state.fileLocks.delete(file);
  }
}

/** Writes `content` to `file`, creating missing parent directories, and remembers the result as
 * seen by the agent. `exclusive` fails when the file already exists. */
export async function writeTracked(state: ToolState | undefined, file: string, content: string, exclusive = false): Promise<void> {
  await makeDirs(path.dirname(file));
  const bytes = Buffer.from(content, "utf8");
  await fs.writeFile(file, bytes, exclusive ? { flag: "wx" } : undefined);
  remember(state, file, await snapshotFile(state, file, bytes));
}
