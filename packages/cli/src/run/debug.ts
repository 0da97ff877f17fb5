// Turns on the run's debug log for `--debug [filter]` / `--debug-file PATH` (llm's debug-log.ts):
// to the file when one is given (made anew), else to stderr, where it never mixes with stdout's JSON.
import { openSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { parseDebugFilter, startDebugLog } from "@harness/llm/debug-log";
import type { Sink } from "../display/render.ts";

/** Starts the log; a one-line problem when the file cannot be written. `cwd`: where a relative path
 * is read from (where the command was typed). */
export function startRunDebug(debug: { filter: string; file?: string }, stderr: Sink, cwd: string): string | undefined {
  const shows = parseDebugFilter(debug.filter);
  // Checked when the flags were read.
  if (typeof shows === "string") return shows;
  if (debug.file === undefined) {
    startDebugLog((line) => stderr.write(line), shows);
    return undefined;
  }
  const path = resolve(cwd, debug.file);
  let fd: number;
  try {
    fd = openSync(path, "w");
  } catch (error) {
    return `--debug-file: cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  // Written at once, so that what a run that dies says last is in the file.
  startDebugLog((line) => void writeSync(fd, line), shows);
  return undefined;
}
