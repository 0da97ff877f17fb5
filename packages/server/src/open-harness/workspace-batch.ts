// files.downloadBatch and files.uploadBatch on a session's workspace: many files at once, each by
// the same confined operations as one (openFile, writeFileAt).
import type { Stats } from "node:fs";
import { Readable } from "node:stream";
import { ApiError } from "./errors.ts";
import { type FileInfo, openFile, type SessionCheck, WRITE_MAX_BYTES, writeFileAt } from "./workspace-files.ts";
import { confined, openedStats, refusalOf, WorkspacePath } from "./workspace-paths.ts";
import { walk } from "./workspace-walk.ts";
import type { ZipEntry } from "./zip-writer.ts";

/** An archive holds at most this many entries (files and folders), of at most this many bytes in all. */
export const DOWNLOAD_MAX_ENTRIES = 1000;
export const DOWNLOAD_MAX_BYTES = 1024 * 1024 * 1024;
/** The folders' entries looked through for an archive, those left out (links out) too. */
export const DOWNLOAD_MAX_LOOKED = 100_000;

const MiB = 1024 * 1024;

/** The entries of the archive of `paths` (checked by WorkspacePath): a file as it is, a folder with
 * all it holds, by their paths in the workspace; "" (the workspace) is all it holds. A name with a
 * backslash, or a first folder named as a drive, is left out of a folder (and what is below it),
 * refused when named. Every path is found before the archive starts: one not there is a 404, one
 * leading out a 400, too much a 413. */
export async function downloadEntries(root: string, paths: string[]): Promise<ZipEntry[]> {
  const entries = new Map<string, ZipEntry>();
  let bytes = 0;
  let looked = 0;
  const met = (paths: string[]) => {
    looked += paths.length;
    if (looked > DOWNLOAD_MAX_LOOKED) throw tooMuch(`folders of more than ${DOWNLOAD_MAX_LOOKED} entries to look through`);
  };
  const add = (path: string, stats: Stats, named = false) => {
    // Tools on Windows read a backslash in a name as a folder's separator ("..\x" as a path out),
    // and a first folder named as a drive ("C:") as where the path starts.
    const odd = path.includes("\\") ? "has a backslash in its name, which tools on Windows read as a folder's separator" : /^[a-z]:/i.test(path) ? "starts with a drive's name, where tools on Windows would put it" : undefined;
    if (odd !== undefined) {
      if (!named) return;
      throw new ApiError(400, "invalid_request", `paths: "${path}" ${odd}: rename it to download it`, "files.downloadBatch");
    }
    const folder = stats.isDirectory();
    const name = folder ? `${path}/` : path;
    if (entries.has(name)) return;
    if (entries.size === DOWNLOAD_MAX_ENTRIES) throw tooMuch(`more than ${DOWNLOAD_MAX_ENTRIES} files and folders`);
    bytes += folder ? 0 : stats.size;
    if (bytes > DOWNLOAD_MAX_BYTES) throw tooMuch(`more than ${DOWNLOAD_MAX_BYTES / MiB} MiB`);
    entries.set(name, { name, modified: stats.mtime, mode: stats.mode, ...(!folder && { data: () => contentOf(root, path, stats.size) }) });
  };
  for (const path of paths) {
    const real = await confined(root, path).catch((error) => {
      throw refusalOf(error, path);
    });
    const stats = await openedStats(root, real, path).catch((error) => {
      throw refusalOf(error, path);
    });
    if (!stats && path !== "") throw new ApiError(404, "file_not_found", `paths: no file "${path}" in the session's workspace`, "files.downloadBatch");
    if (!stats) continue;
    if (!stats.isFile() && !stats.isDirectory()) throw new ApiError(400, "invalid_request", `paths: "${path}" is not a regular file (a pipe, a socket or a device)`, "files.downloadBatch");
    if (path !== "") add(path, stats, true);
    if (stats.isDirectory()) await walk(root, real, path, async (entry) => add(entry.path, entry.stats), { met });
  }
  return [...entries.values()];
}

const tooMuch = (what: string) => new ApiError(413, "payload_too_large", `paths: name ${what} (an archive holds at most ${DOWNLOAD_MAX_ENTRIES} entries and ${DOWNLOAD_MAX_BYTES / MiB} MiB)`, "files.downloadBatch");

/** The bytes of the file `relative`, no more than `size` (what was counted when it was listed);
 * undefined when it is gone or no longer a file there. */
async function contentOf(root: string, relative: string, size: number): Promise<Readable | undefined> {
  const opened = await openFile(root, relative).catch(() => undefined);
  if (!opened) return undefined;
  const length = Math.min(size, opened.info.size_bytes!);
  if (length === 0) {
    await opened.handle.close();
    return Readable.from([]);
  }
  return opened.handle.createReadStream({ start: 0, end: length - 1 });
}

export type UploadBatchResult = { uploaded: FileInfo[]; skipped: string[]; errors: { path: string; error: string }[] };

/** Writes each of `files` below `base` (its name a path from there), one after the other: a file
 * there already is skipped unless `overwrite`; one that cannot be written (a bad path, one leading
 * out, a folder there, over WRITE_MAX_BYTES) is an error of its own, the others written all the same.
 * Once its session is gone (deleted meanwhile: `stillThere` throws), no more is written: it throws. */
export async function uploadBatch(root: string, base: string, files: File[], overwrite: boolean, stillThere: SessionCheck): Promise<UploadBatchResult> {
  const result: UploadBatchResult = { uploaded: [], skipped: [], errors: [] };
  for (const file of files) {
    // Before each: the deletion removes what was written before it, and nothing may be written after.
    await stillThere();
    const name = file.name;
    const joined = base === "" ? name : `${base}/${name}`;
    const checked = WorkspacePath.safeParse(joined);
    if (!checked.success || name === "" || name.startsWith("/")) {
      const why = checked.success ? "must be a path relative to base_path" : checked.error.issues[0].message;
      result.errors.push({ path: name, error: `filename: ${why}` });
      continue;
    }
    const path = checked.data;
    if (file.size > WRITE_MAX_BYTES) {
      result.errors.push({ path, error: `file: larger than ${WRITE_MAX_BYTES / MiB} MiB, the most a file written over this API may be` });
      continue;
    }
    try {
      result.uploaded.push((await writeFileAt(root, path, new Uint8Array(await file.arrayBuffer()), overwrite, stillThere)).file);
    } catch (error) {
      if (error instanceof ApiError && error.code === "session_not_found") throw error;
      if (error instanceof ApiError && error.code === "file_exists") result.skipped.push(path);
      else if (error instanceof ApiError) result.errors.push({ path, error: error.message });
      else throw error;
    }
  }
  return result;
}
