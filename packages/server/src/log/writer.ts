// A line of the server's log, as text (unchanged, or after its time) or as one JSON object.
import { LOG_LEVELS, type LogLevel, type LogSettings } from "./settings.ts";

/** What a line says beyond its text, for the JSON form: its level (default info), its message
 * without what the fields hold ("run completed" of "session ann/s1: run completed"; default the
 * text), and fields of its own (user, session, run, status, durationMs, address, httpStatus…): each
 * name holds one type of value on every line, as a log store indexes a name once. */
export type LogDetail = {
  level?: LogLevel;
  msg?: string;
  time?: never;
  [field: string]: string | number | boolean | undefined;
};

/** Where the server's log goes: `line` is the text form, one line; `detail` what the JSON form
 * shows of it. A sink that keeps only the text may ignore `detail`. */
export type ServerLog = (line: string, detail?: LogDetail) => void;

/** A ServerLog that writes each line of `settings.level` or above with `write` (given one line,
 * without its newline), as the settings say. */
export function logWriter(settings: LogSettings, write: (line: string) => void, now: () => Date = () => new Date()): ServerLog {
  const least = LOG_LEVELS.indexOf(settings.level);
  return (line, detail = {}) => {
    const { level = "info", msg = line, ...fields } = detail;
    if (LOG_LEVELS.indexOf(level) < least) return;
    if (settings.format === "json") write(JSON.stringify({ time: now().toISOString(), level, msg, ...fields }));
    else write(settings.timestamps ? `${now().toISOString()} ${line}` : line);
  };
}
