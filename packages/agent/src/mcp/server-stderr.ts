// What a stdio MCP server writes on stderr. Each line goes to the debug log as it comes
// (`harness run --debug mcp`); the end is kept for the report of the server's failure, which shows
// only its last few meaningful lines: a launcher such as npx ends its error with boilerplate (where
// its own log is, how else to install) that would otherwise fill the report on every run. The
// report names how to see the rest only where the process has a way, or, where the debug log is on
// and goes to a file of a runner (a server's HARNESS_DEBUG), that file (llm's debug-log.ts).
import { debugHow, debugOn, debugWhere } from "@harness/llm/debug-log";
import type { McpRunServerConfig } from "./config.ts";
import { mcpDebug } from "./debug-lines.ts";

/** How much of the end of stderr is kept for the report. */
const TAIL_CHARS = 8_000;
const REPORT_LINES = 5;
const REPORT_LINE_CHARS = 200;
/** A line longer than this is written to the debug log in pieces. */
const DEBUG_LINE_CHARS = 10_000;

/** Terminal escape sequences (colours, cursor moves, titles) and other control characters. */
const CONTROLS = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]/g;
const NPM_LINE = /^npm (?:error|ERR!|warn|WARN|notice)(?:\s|$)/;
/** npm's lines that say nothing of this failure: a bare prefix ("npm error 404"), where its log
 * is (on the same line since npm 9, on the next before), how else a package can be installed,
 * and notices (a newer npm is out). */
const NPM_BOILERPLATE = [
  /^npm (?:error|ERR!)(?: \d{3})?\s*$/,
  /A complete log of this run can be found in/,
  /^npm (?:error|ERR!)\s+\S*[\\/]_logs[\\/]\S*\.log\s*$/,
  /Note that you can also install from a\s*$/,
  /tarball, folder, http url, or git url\.\s*$/,
  /^npm notice\b/,
];

export class ServerStderr {
  #config: McpRunServerConfig;
  #tail = "";
  /** Whether the start of stderr has gone from the tail. */
  #cut = false;
  /** The debug log's unfinished line. */
  #line = "";

  constructor(config: McpRunServerConfig) {
    this.#config = config;
  }

  write(text: string): void {
    const tail = this.#tail + text;
    this.#cut ||= tail.length > TAIL_CHARS;
    this.#tail = tail.slice(-TAIL_CHARS);
    if (!debugOn("mcp")) return;
    const lines = (this.#line + text).split("\n");
    this.#line = lines.pop()!;
    if (this.#line.length > DEBUG_LINE_CHARS) {
      lines.push(this.#line);
      this.#line = "";
    }
    for (const line of lines) this.#debug(line);
  }

  /** Stderr is closed: its last line, if unfinished, goes to the debug log. */
  end(): void {
    if (this.#line !== "") this.#debug(this.#line);
    this.#line = "";
  }

  /** `message`, then the last meaningful lines of stderr, indented, and when they are not all of
   * it, where to see the rest: the debug log's file when it is on and names one, else (it off) how
   * to turn it on where this process can. */
  report(message: string): string {
    const all = this.#tail.split("\n").map((line) => line.replace(CONTROLS, (c) => (c === "\t" ? " " : "")).trimEnd());
    const written = all.filter((line) => line.trim() !== "");
    const meaningful = written.filter((line) => !(NPM_LINE.test(line) && NPM_BOILERPLATE.some((pattern) => pattern.test(line))));
    const shown = meaningful.slice(-REPORT_LINES).map((line) => (line.length > REPORT_LINE_CHARS ? `${line.slice(0, REPORT_LINE_CHARS - 1)}…` : line));
    if (shown.length === 0) return message;
    const whole = !this.#cut && shown.length === written.length && shown.every((line, i) => line === written[i]);
    const file = whole ? undefined : debugWhere("mcp");
    const how = whole || debugOn("mcp") ? undefined : debugHow("mcp");
    const hint = file !== undefined ? [`(all of its stderr is in ${file})`] : how === undefined ? [] : [`(${how} shows all of its stderr)`];
    return [`${message}; its stderr ended with:`, ...[...shown, ...hint].map((line) => `  ${line}`)].join("\n");
  }

  #debug(line: string): void {
    mcpDebug(this.#config, (name) => `server ${name} stderr: ${line.replace(CONTROLS, "").trimEnd()}`);
  }
}
