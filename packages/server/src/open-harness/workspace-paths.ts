// Paths of a session's workspace as the files routes take them: relative to it, and leading nowhere
// else. Their words are checked first (no absolute path, no "..", no NUL), then where they really
// lead: a symbolic link on the way that points out of the workspace is refused too.
import { lstat } from "node:fs/promises";
import { join, posix } from "node:path";
import { isWithin, realPathOf } from "@harness/agent/real-paths";
import { RelativePathSchema } from "../sessions/files.ts";
import { ApiError } from "./errors.ts";

/** A path relative to the workspace ("" for the workspace itself), as a request gives it. */
export const WorkspacePath = RelativePathSchema.transform((path) => {
  const normal = posix.normalize(path === "" ? "." : path).replace(/\/+$/, "");
  return normal === "." ? "" : normal;
});

/** Where `relative` (checked by WorkspacePath) really leads below `root`, links followed (the last
 * one too unless `followLast` is false: a delete removes the link, not what it leads to). 400 when
 * that is outside the workspace. */
export async function confined(root: string, relative: string, followLast = true): Promise<string> {
  const realRoot = realPathOf(root);
  const target = join(realRoot, relative);
  const parent = realPathOf(posix.dirname(target));
  const real = followLast ? realPathOf(target) : join(parent, posix.basename(target));
  if (relative !== "" && (!isWithin(parent, realRoot) || !isWithin(real, realRoot))) {
    throw new ApiError(400, "invalid_request", `path: "${relative}" goes through a symbolic link that leads outside the session's workspace`);
  }
  return real;
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
  if (code === "EACCES" || code === "EPERM") return new ApiError(403, "forbidden", `path: "${relative}" cannot be reached: permission denied`);
  if (code === undefined) return error;
  return new Error(`the file operation on "${relative}" failed: ${code}`);
}
