// The files operations on a session's workspace, once the route has checked who asks: paths as
// WorkspacePath gives them (relative, "" for the workspace itself), confined to it (confined()).
import { constants, type Stats } from "node:fs";
import { randomBytes } from "node:crypto";
import { link, lstat, mkdir, open, rename, rm, rmdir, unlink } from "node:fs/promises";
import { join, posix, relative as pathFrom, sep } from "node:path";
import { makeDirs } from "@harness/agent/make-dirs";
import { realPathOf } from "@harness/agent/real-paths";
import { ApiError } from "./errors.ts";
import { mimeTypeByName, mimeTypeOf } from "./file-types.ts";
import { type At, inDirectory, makeDirsBelow, removeAll } from "./workspace-at.ts";
import { checkOpened, confined, entryAt, openConfined, openedStats, placeOf, refusalOf } from "./workspace-paths.ts";
import { walk, type Walked } from "./workspace-walk.ts";

/** A list answers at most this many entries (then `truncated`); a write takes at most this many bytes. */
export const LIST_MAX = 10_000;
export const WRITE_MAX_BYTES = 10 * 1024 * 1024;

export type FileInfo = { path: string; name: string; type: "file" | "directory"; size_bytes?: number; mime_type?: string; modified_at: string };

/** What a file or folder is, as the spec's FileInfo; a file's type as mimeTypeOf() tells it. */
export function infoOf(relative: string, stats: Stats, mimeType?: string): FileInfo {
  const file = stats.isFile();
  return {
    path: relative,
    name: posix.basename(relative),
    type: file ? "file" : "directory",
    ...(file && { size_bytes: stats.size, mime_type: mimeType }),
    modified_at: timeOf(stats),
  };
}

/** The latest (and earliest) time a Date holds, in ms: a run may set its files' times past it. */
const DATE_LIMIT_MS = 8.64e15;
const timeOf = ({ mtime, mtimeMs }: Stats) => (Number.isNaN(mtime.getTime()) ? new Date(Math.sign(mtimeMs) * DATE_LIMIT_MS) : mtime).toISOString();

/** Throws (404 session_not_found, as ownSession()) once the session whose workspace is written is
 * gone: its deletion removes the workspace, which a write after it must not make again. */
export type SessionCheck = () => Promise<unknown>;

const fileExists = (relative: string) => new ApiError(409, "file_exists", `path: "${relative}" exists: send overwrite=true to replace it`);
const notFound = (relative: string) => new ApiError(404, "file_not_found", `no file "${relative}" in the session's workspace`);

/** The entries of the directory `relative` (all below it with `recursive`), sorted by path. Links
 * are shown as what they lead to, when that is inside the workspace; others are left out. A
 * workspace no run has made yet is empty. Each folder is read through its open descriptor (walk()):
 * what is listed is what is in the workspace, whatever a run swaps meanwhile. */
export async function listFiles(root: string, relative: string, recursive: boolean): Promise<{ files: FileInfo[]; truncated: boolean }> {
  return onPath(relative, () => listBelow(root, relative, recursive));
}

async function listBelow(root: string, relative: string, recursive: boolean): Promise<{ files: FileInfo[]; truncated: boolean }> {
  const real = await confined(root, relative);
  const stats = await openedStats(root, real, relative);
  if (!stats) {
    if (relative === "") return { files: [], truncated: false };
    throw notFound(relative);
  }
  if (!stats.isDirectory()) throw new ApiError(400, "invalid_request", `path: "${relative}" is a file, not a directory: read it with GET .../files/${relative}`);
  const files: FileInfo[] = [];
  let truncated = false;
  const add = async (entry: Walked) => {
    if (files.length >= LIST_MAX) return void (truncated = true);
    files.push(await walkedInfo(entry));
  };
  await walk(root, real, relative, add, { skip: () => !recursive, stop: () => truncated });
  return { files: sorted(files), truncated };
}

/** What an entry a walk met is, as FileInfo: a file's type by its name, else from its first bytes,
 * read from it opened as the walk opens it (one that cannot be, as it is no longer the file met or
 * cannot be read, is binary: its bytes are not known). */
export async function walkedInfo(entry: Walked): Promise<FileInfo> {
  const { path, real, stats } = entry;
  if (!stats.isFile()) return infoOf(path, stats);
  const known = mimeTypeByName(real);
  if (known) return infoOf(path, stats, known);
  const file = await entry.open();
  if (!file) return infoOf(path, stats, "application/octet-stream");
  try {
    return infoOf(path, stats, await mimeTypeOf(real, file));
  } finally {
    await file.close();
  }
}

const sorted = (files: FileInfo[]) => files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

/** The file `relative`, opened for reading (never through a link at its end: confined() resolved
 * those), with what it is. Opened before it is looked at, without waiting: what is looked at (its
 * size, its time, its first bytes for its type) is what is read, and a named pipe is refused rather
 * than waited on. */
export async function openFile(root: string, relative: string) {
  if (relative === "") throw new ApiError(400, "invalid_request", "path: names the workspace itself, a directory: list it with GET .../files");
  return onPath(relative, async () => {
    const real = await confined(root, relative);
    const handle = await openConfined(root, real, relative);
    if (!handle) throw notFound(relative);
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) throw new ApiError(400, "invalid_request", `path: "${relative}" is a directory, not a file: list it with GET .../files?path=${encodeURIComponent(relative)}`);
      if (!stats.isFile()) throw new ApiError(400, "invalid_request", `path: "${relative}" is not a regular file (a pipe, a socket or a device): only files are read`);
      return { handle, info: infoOf(relative, stats, await mimeTypeOf(real, handle)) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  });
}

/** Writes `content` to `relative`, making the directories it needs. The file is replaced (written
 * beside it and renamed over it), never written into: a reader never sees half of it, and what is
 * there is not followed (a hard link's other names keep their content, a pipe is not waited on).
 * A file replaced keeps its mode. Without `overwrite`, a file there (even one made meanwhile) is
 * left as it is: 409 file_exists. What is there is looked at, and the file made, in its directory
 * as it is open (makeDirsOrSay). The workspace is made when it is not there yet, while `stillThere`
 * takes its session. */
export async function writeFileAt(root: string, relative: string, content: Uint8Array, overwrite: boolean, stillThere: SessionCheck): Promise<{ file: FileInfo; created: boolean }> {
  if (relative === "") throw new ApiError(400, "invalid_request", "path: names the workspace itself: name a file in it");
  const isDirectory = () => new ApiError(400, "invalid_request", `path: "${relative}" is a directory, not a file`);
  return onPath(relative, async () => {
    const real = await confined(root, relative);
    // A link to the workspace itself.
    if (real === realPathOf(root)) throw isDirectory();
    const name = posix.basename(real);
    return makeDirsOrSay(root, posix.dirname(real), relative, stillThere, async (at) => {
      const before = await entryAt(at(name), relative);
      if (before?.isDirectory()) throw isDirectory();
      if (before && !overwrite) throw fileExists(relative);
      const stats = await replaceFile(root, relative, at, name, content, before?.isFile() ? before.mode & 0o7777 : undefined, overwrite);
      return { file: infoOf(relative, stats, await mimeTypeOf(real, content)), created: before === undefined };
    });
  });
}

/** Writes `content` beside `name` in the open directory of `at` and renames it over it (links it
 * there, without `overwrite`): the new file is made where it was checked to be (checkOpened), or
 * removed from wherever it went. What it is once written, taken from the file made, open. */
async function replaceFile(root: string, relative: string, at: At, name: string, content: Uint8Array, mode: number | undefined, overwrite: boolean): Promise<Stats> {
  const temp = at(`.harness-write-${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    await checkOpened(handle.fd, root, relative);
    await handle.writeFile(content);
    // Set on the open file: the umask left out of it what the old file had.
    if (mode !== undefined) await handle.chmod(mode);
    // Before it is put in place: neither a rename nor a link changes its size or its time.
    const stats = await handle.stat();
    if (overwrite) await rename(temp, at(name));
    else {
      // A link is made only where no name is: what a run made meanwhile stays.
      await link(temp, at(name)).catch((error: NodeJS.ErrnoException) => {
        throw error.code === "EEXIST" ? fileExists(relative) : error;
      });
      // Never failing here: the catch below would remove the file by where the handle is now.
      await unlink(temp).catch(() => {});
    }
    return stats;
  } catch (error) {
    // Where it is now, which `temp` may no longer name.
    await rm((await placeOf(handle.fd)) ?? temp, { force: true });
    throw error;
  } finally {
    await handle.close();
  }
}

/** Makes the directory `relative` and those above it (the workspace too, as writeFileAt() makes it),
 * each in the one above it as it is open. */
export async function makeDirectory(root: string, relative: string, stillThere: SessionCheck): Promise<{ file: FileInfo; created: boolean }> {
  if (relative === "") throw new ApiError(400, "invalid_request", "path: names the workspace itself: name a directory in it");
  return onPath(relative, async () => {
    const real = await confined(root, relative);
    // A link to the workspace itself: there.
    if (real === realPathOf(root)) return makeDirsOrSay(root, real, relative, stillThere, async (at) => ({ file: infoOf(relative, await lstat(at("."))), created: false }));
    const name = posix.basename(real);
    return makeDirsOrSay(root, posix.dirname(real), relative, stillThere, async (at) => {
      const before = await entryAt(at(name), relative);
      if (before && !before.isDirectory()) throw new ApiError(400, "invalid_request", `path: "${relative}" is a file, not a directory`);
      const made = await mkdir(at(name)).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === "EEXIST") return false;
          throw error;
        },
      );
      // As makeDirsBelow enters a directory: never through a link at its end.
      const stats = await inDirectory(at(name), async () => {}, (inner) => lstat(inner(".")));
      return { file: infoOf(relative, stats), created: made };
    });
  });
}

/** Makes `dir` (where confined() found a part of `relative` to be, or would be) and the directories
 * above it: the workspace first (no run may have made it yet: makeWorkspace), then each below it
 * from the one above (makeDirsBelow), so that none is made outside it; then `use` given `dir`, open. */
async function makeDirsOrSay<T>(root: string, dir: string, relative: string, stillThere: SessionCheck, use: (at: At) => Promise<T>): Promise<T> {
  const realRoot = realPathOf(root);
  const parts = dir === realRoot ? [] : pathFrom(realRoot, dir).split(sep);
  // What `use` throws is its own to say.
  let entered = false;
  try {
    await makeWorkspace(realRoot, stillThere);
    return await makeDirsBelow(realRoot, parts, (fd) => checkOpened(fd, root, relative), (at) => {
      entered = true;
      return use(at);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!entered && (code === "EEXIST" || code === "ENOTDIR")) throw new ApiError(400, "invalid_request", `path: a part of "${relative}" is a file, not a directory`);
    throw error;
  }
}

/** Makes the workspace `realRoot` when it is not there, and keeps it only when its session is still
 * there once it is made (`stillThere`): a deletion of the session that removed it before has
 * forgotten the session by then, and one that forgets it after removes it. A workspace already
 * there is left to its session's deletion, which removes what is written into it meanwhile. */
async function makeWorkspace(realRoot: string, stillThere: SessionCheck): Promise<void> {
  const made = await mkdir(realRoot).then(
    () => true,
    async (error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return false;
      if (error.code !== "ENOENT") throw error;
      await makeDirs(posix.dirname(realRoot));
      return mkdir(realRoot).then(
        () => true,
        (again: NodeJS.ErrnoException) => {
          if (again.code === "EEXIST") return false;
          throw again;
        },
      );
    },
  );
  if (!made) return;
  try {
    await stillThere();
  } catch (error) {
    // With what other writes put in it meanwhile: they found it made, so this check is theirs too.
    await rm(realRoot, { recursive: true, force: true }).catch(() => {});
    throw error;
  }
}

/** Deletes the file, link (never what it leads to) or empty directory `relative`; a directory with
 * what it holds only with `recursive`. */
export async function deleteAt(root: string, relative: string, recursive: boolean): Promise<void> {
  if (relative === "") throw new ApiError(400, "invalid_request", "path: names the workspace itself, which goes with its session (delete the session)");
  return onPath(relative, async () => {
    const real = await confined(root, relative, false);
    const name = posix.basename(real);
    const deleting = inDirectory(posix.dirname(real), (fd) => checkOpened(fd, root, relative), async (at) => {
      const entry = await lstat(at(name));
      if (!entry.isDirectory()) return unlink(at(name));
      if (recursive) return removeAll(at, name);
      await rmdir(at(name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOTEMPTY" || error.code === "EEXIST") {
          throw new ApiError(409, "directory_not_empty", `path: "${relative}" is a directory that is not empty: send recursive=true to delete it with what it holds`);
        }
        throw error;
      });
    });
    // Not there (or gone meanwhile: deleted all the same).
    await deleting.catch((error: NodeJS.ErrnoException) => {
      throw error.code === "ENOENT" ? notFound(relative) : error;
    });
  });
}

/** `operation` on `relative`, its file system failures answered as refusalOf() says. */
async function onPath<T>(relative: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw refusalOf(error, relative);
  }
}

