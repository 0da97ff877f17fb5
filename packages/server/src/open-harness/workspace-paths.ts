// Paths of a session's workspace as the files routes take them: relative to it, and leading nowhere
// else. Their words are checked first (no absolute path, no "..", no NUL), then where they really
// lead: a symbolic link on the way that points out of the workspace is refused too, and a file
// opened is checked to be where it was looked for (checkOpened: a run may swap a directory for a
// link in between).
import { constants, type Stats } from "node:fs";
import { lstat, open, readlink, type FileHandle } from "node:fs/promises";
import { join, posix } from "node:path";
import { z } from "zod";
import { isWithin, realPathOf } from "@harness/agent/real-paths";
import { RelativePathSchema } from "../sessions/files.ts";
import { ApiError } from "./errors.ts";

/** A path in the workspace as a request gives it: relative to it, or from "/" as the spec writes
 * them ("/" is the workspace itself, "/src" its src folder); "" for the workspace itself. */
export const WorkspacePath = z.preprocess(
  (path) => (typeof path === "string" ? path.replace(/^\/+/, "") : path),
  RelativePathSchema.transform((path) => {
    const normal = posix.normalize(path === "" ? "." : path).replace(/\/+$/, "");
    return normal === "." ? "" : normal;
  }),
);

/** Where `relative` (checked by WorkspacePath) really leads below `root`, links followed (the last
 * one too unless `followLast` is false: a delete removes the link, not what it leads to). 400 when
 * that is outside the workspace. */
export async function confined(root: string, relative: string, followLast = true): Promise<string> {
  const realRoot = realPathOf(root);
  const target = join(realRoot, relative);
  const parent = realPathOf(posix.dirname(target));
  const real = followLast ? realPathOf(target) : join(parent, posix.basename(target));
  if (relative !== "" && (!isWithin(parent, realRoot) || !isWithin(real, realRoot))) throw leadsOut(relative);
  return real;
}

const leadsOut = (relative: string) => new ApiError(400, "invalid_request", `path: "${relative}" goes through a symbolic link that leads outside the session's workspace`);

/** Where the file open as `fd` is now, as Linux's /proc says; undefined where it cannot say. */
export async function placeOf(fd: number): Promise<string | undefined> {
  return readlink(`/proc/self/fd/${fd}`).catch(() => undefined);
}

/** Throws when the file open as `fd` is not in the workspace `root`. A directory on the way to it
 * may have been swapped for a link out since confined() looked (a run can do it, at any time): the
 * open followed that link, and this says so. */
export async function checkOpened(fd: number, root: string, relative: string): Promise<void> {
  const place = await placeOf(fd);
  if (place !== undefined && !isWithin(place, realPathOf(root))) throw leadsOut(relative);
}

/** The file at `real` (where confined() found `relative` to lead), opened: never through a link
 * at its end, without waiting on a pipe, and checked by checkOpened(); undefined when nothing is
 * there. The caller closes it. */
export async function openConfined(root: string, real: string, relative: string): Promise<FileHandle | undefined> {
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    await checkOpened(handle.fd, root, relative);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** What is at `real`, as the file openConfined() opens there; undefined when nothing is. */
export async function openedStats(root: string, real: string, relative: string): Promise<Stats | undefined> {
  const handle = await openConfined(root, real, relative);
  if (!handle) return undefined;
  try {
    return await handle.stat();
  } finally {
    await handle.close();
  }
}

/** What is at `real` without following a link there; undefined when nothing is. */
export async function entryAt(real: string, relative: string) {
  return lstat(real).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw refusalOf(error, relative);
  });
}

/** What a failed file operation on `relative` answers: a refusal that names the path as the request
 * gave it, never where the server keeps the workspace (an ErrnoException's message says that). */
export function refusalOf(error: unknown, relative: string): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const bad = (why: string) => new ApiError(400, "invalid_request", `path: "${relative}" ${why}`);
  if (code === "ELOOP") return bad("goes through symbolic links that lead round in a loop");
  if (code === "ENOTDIR") return bad("has a part that is a file, not a directory");
  if (code === "ENAMETOOLONG") return bad("has a name too long for the file system");
  if (code === "ENXIO") return bad("is a socket: only files and directories are worked on");
  // What was looked at first is no more: something else changed it meanwhile (a run).
  if (code === "ENOENT") return new ApiError(409, "conflict", `path: "${relative}" changed while it was worked on (a part of it went away): try again`);
  if (code === "ENOTEMPTY") return new ApiError(409, "conflict", `path: "${relative}" changed while it was worked on (files were added to it): try again`);
  if (code === "EACCES" || code === "EPERM") return new ApiError(403, "forbidden", `path: "${relative}" cannot be reached: permission denied`);
  if (code === undefined) return error;
  return new Error(`the file operation on "${relative}" failed: ${code}`);
}
