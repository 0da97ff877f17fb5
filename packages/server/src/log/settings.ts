// How `harness serve` writes its log: HARNESS_LOG_FORMAT, HARNESS_LOG_LEVEL, HARNESS_LOG_TIMESTAMPS.
import { fstatSync } from "node:fs";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export type LogSettings = {
  /** text: the lines as they always were; json: one object a line (log/writer.ts). */
  format: LogFormat;
  /** Lines below this level are left out. */
  level: LogLevel;
  /** Whether a text line starts with its time (a JSON line always carries it). */
  timestamps: boolean;
};

/** Whether the process's standard output is a regular file: `nohup harness serve`, `> harness.log`,
 * systemd's `StandardOutput=append:`. Nothing else stamps the lines of such a file with their time,
 * where a terminal's reader sees them come, journald and container runtimes record the time of each
 * line themselves, and a script reading the URL from a pipe wants the line as it always was. */
export function stdoutIsFile(): boolean {
  try {
    return fstatSync(1).isFile();
  } catch {
    return false;
  }
}

/** One of `allowed`, lower-cased, or `fallback` when unset or empty; throws naming the variable,
 * the values it takes and what was given. */
function oneOf<T extends string>(env: Record<string, string | undefined>, name: string, allowed: readonly T[], fallback: T): T {
  const given = env[name];
  if (given === undefined || given.trim() === "") return fallback;
  const value = given.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`${name} must be ${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)}, got ${JSON.stringify(given)}`);
  return value as T;
}

/** The log's settings from the environment; throws an Error naming the variable that is wrong.
 * Timestamps, unset, are on when standard output is a regular file (`toFile`). */
export function logSettings(env: Record<string, string | undefined>, toFile: () => boolean = stdoutIsFile): LogSettings {
  const format = oneOf(env, "HARNESS_LOG_FORMAT", LOG_FORMATS, "text");
  const level = oneOf(env, "HARNESS_LOG_LEVEL", LOG_LEVELS, "info");
  const stamps = oneOf(env, "HARNESS_LOG_TIMESTAMPS", ["1", "0"], toFile() ? "1" : "0");
  return { format, level, timestamps: stamps === "1" };
}
