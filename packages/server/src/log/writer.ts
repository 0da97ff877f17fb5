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
    if (settings.format === "json") write(JSON.stringify({ time: now().toISOString(), level, msg, ...fields }).replace(UNESCAPED_BY_JSON, (c) => `\\u${hex(c, 4)}`));
    else write(settings.timestamps ? `${now().toISOString()} ${oneLine(line)}` : oneLine(line));
  };
}

const LINE_BREAKS = /\s*[\r\n\u2028\u2029]+\s*/g;
/** C0 controls but the tab, DEL and C1: a terminal that shows the log takes ESC or CSI for a command. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** What JSON.stringify leaves as it is in a string, and a terminal or a line reader would not. */
const UNESCAPED_BY_JSON = /[\u007f-\u009f\u2028\u2029]/g;

const hex = (c: string, digits: number) => c.charCodeAt(0).toString(16).padStart(digits, "0");

/** `line` as one line of text, whatever it quotes (an error's several lines, a runner's output, a
 * client's words): its line breaks joined by a space, its controls shown as `\x1b`, so that nothing
 * in it can pass for a line of its own or drive the terminal that shows it. */
export function oneLine(line: string): string {
  return line.replace(LINE_BREAKS, " ").replace(CONTROLS, (c) => `\\x${hex(c, 2)}`);
}
