// The debug log of a server's runners: HARNESS_DEBUG names it on for the server (and `harness serve
// --debug [filter]`), and the server hands each runner the same filter with the file to write it to,
// HARNESS_DEBUG_FILE, beside the runner's output. A runner started any other way writes none.
import { AsyncLocalStorage } from "node:async_hooks";
import { openSync, writeSync } from "node:fs";
import { parseDebugFilter, setDebugWhere, startDebugLog } from "@harness/llm/debug-log";

export const DEBUG_ENV = "HARNESS_DEBUG";
export const DEBUG_FILE_ENV = "HARNESS_DEBUG_FILE";

/** Values of HARNESS_DEBUG that turn the log on for every category, and off. */
const ALL = new Set(["1", "true", "yes", "on"]);
const OFF = new Set(["", "0", "false", "no", "off"]);

/** HARNESS_DEBUG read: the filter (`--debug`'s: "" for all, "mcp", "!api"), undefined when the log
 * is off, or what is wrong, naming the variable. */
export function debugSetting(text: string | undefined): { filter: string | undefined } | { error: string } {
  const value = (text ?? "").trim();
  if (OFF.has(value.toLowerCase())) return { filter: undefined };
  if (ALL.has(value.toLowerCase())) return { filter: "" };
  const shows = parseDebugFilter(value);
  if (typeof shows === "string") return { error: `${DEBUG_ENV}: ${shows.replace(/^--debug filter /, "the filter ")} (or 1 for all)` };
  return { filter: value };
}

/** Whose run the code running now serves (a query's debugLabel): set only while the log is on, so
 * that a runner without one pays nothing for it. */
let runLabel: AsyncLocalStorage<string> | undefined;

/** Runs `fn` with each debug line it writes, to its end, named by `label` ("ann/s1") after the
 * time: one runner's file holds the lines of every session it serves. */
export function labelledRun<T>(label: string | undefined, fn: () => T): T {
  return runLabel === undefined || label === undefined ? fn() : runLabel.run(label, fn);
}

/** `line` ("<time> [DEBUG] …") with the label of the run that wrote it after its time. */
function labelled(line: string): string {
  const label = runLabel?.getStore();
  if (label === undefined) return line;
  const space = line.indexOf(" ");
  return `${line.slice(0, space)} [${label}]${line.slice(space)}`;
}

/** Turns on this runner's debug log when its server asked for one (HARNESS_DEBUG_FILE), appending to
 * that file, with `secrets` (the runner's token) and the environment's hidden (startDebugLog); both variables are taken out of the
 * environment its tools get. A string is what is wrong. */
export function startRunnerDebug(env: NodeJS.ProcessEnv, secrets: (string | undefined)[]): string | undefined {
  const file = env[DEBUG_FILE_ENV];
  const setting = debugSetting(env[DEBUG_ENV]);
  delete env[DEBUG_FILE_ENV];
  delete env[DEBUG_ENV];
  if (!file) return undefined;
  if ("error" in setting) return setting.error;
  if (setting.filter === undefined) return undefined;
  const shows = parseDebugFilter(setting.filter);
  if (typeof shows === "string") return shows;
  let fd: number;
  try {
    fd = openSync(file, "a", 0o600);
  } catch (error) {
    return `${DEBUG_FILE_ENV}: cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  // Written at once, so that what a runner that dies says last is in the file.
  runLabel = new AsyncLocalStorage<string>();
  startDebugLog((line) => void writeSync(fd, labelled(line)), shows, secrets);
  setDebugWhere(file);
  return undefined;
}
