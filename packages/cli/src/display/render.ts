// Terminal rendering of a headless run: the reply text goes to stdout as it streams; tool activity
// goes to stderr as `● Tool(summary)` followed by a short, indented excerpt of its output (an MCP
// tool's progress lines before it, as they come), and so do notices (a settings file that could
// not be read, an MCP server that did not start, …).
import { fstatSync } from "node:fs";
import { relative, isAbsolute } from "node:path";
import type { AgentEvent } from "@harness/protocol";
import { callBody, callLabel } from "./call-display.ts";
import { columns, cut, printable } from "./terminal-text.ts";
import { markdownFor } from "../markdown/stream.ts";

export type Sink = { write(text: string): unknown; isTTY?: boolean };

export type RendererOptions = {
  /** ANSI colours on stderr. */
  color: boolean;
  /** Tool file paths are shown relative to this directory. */
  cwd: string;
  /** Widest line of tool output shown. */
  width?: number;
  /** Lines of tool output shown before "… +N lines". */
  outputLines?: number;
  /** Tool calls' inputs and outputs shown whole, lines as long as they are (a chat's --verbose). */
  full?: boolean;
  /** Whether stdout and stderr end up in one place (default: both are terminals); see sameTarget. */
  shared?: boolean;
  /** Stdout gets only the reply's last part, at the end, as `claude -p` prints it for a script
   * (`msg=$(harness run …)`): the text the model wrote before calling tools goes to stderr with
   * the calls. Otherwise all of it streams to stdout. */
  finalOnly?: boolean;
  /** The model's thinking printed dimmed on stderr as it streams, under "✻ Thinking…" (a run's
   * --verbose); otherwise it is not shown. Stdout never gets it. */
  thinking?: boolean;
};

/** Whether file descriptors 1 and 2 are one terminal, pipe or file (`2>&1`, a CI log). */
function sameTarget(): boolean {
  try {
    const [out, err] = [fstatSync(1), fstatSync(2)];
    return out.dev === err.dev && out.ino === err.ino;
  } catch {
    return false;
  }
}

/** Colour (stderr a terminal, NO_COLOR unset, TERM not dumb) and whether stdout and stderr share
 * one place, for a command printing to `io`; sinks other than the process's own are never shared. */
export function terminalOptions(io: { stdout: Sink; stderr: Sink; env: NodeJS.ProcessEnv }): { color: boolean; shared?: boolean } {
  const color = Boolean(io.stderr.isTTY) && !io.env.NO_COLOR && io.env.TERM !== "dumb";
  return io.stdout === process.stdout && io.stderr === process.stderr ? { color, shared: sameTarget() } : { color };
}

export type Renderer = {
  event(event: AgentEvent): void;
  /** Ends the reply with a newline if it lacks one. */
  finish(): void;
};

/** A running call's output printed as it comes: what is left of a line not ended yet, and whether
 * a line was printed. Only MCP tools' output is: it is their progress reports, a line each, which
 * their result does not repeat; other tools' output is shown in their result's excerpt. */
type LiveLines = { partial: string; shown: boolean };

const isMcpTool = (name: string) => name.startsWith("mcp__");

const SUMMARY_KEYS = ["command", "file_path", "pattern", "path", "url", "query", "description", "prompt", "plan"];

// Kept here too: most of the CLI takes them from the renderer.
export { clusters, columns, cut, printable, width } from "./terminal-text.ts";

/** The first line of `text`, spaces collapsed, cut to `max`; "…" says when more lines follow. */
export function oneLine(text: string, max: number): string {
  const lines = printable(text.replace(/\r\n?/g, "\n")).trim().split("\n");
  const first = lines[0].replace(/\s+/g, " ").trim();
  return cut(lines.length > 1 ? `${first} …` : first, max);
}

/** `Bash(echo hi)`, `Read(src/index.ts)`, … : the tool name and its most telling argument (paths
 * under `cwd` shown relative to it). */
export function describeToolCall(toolName: string, input: Record<string, unknown> | undefined, cwd?: string, max = 80): string {
  // The model names the tool it calls, and may name one that does not exist.
  const name = printable(toolName);
  if (!input) return name;
  for (const key of SUMMARY_KEYS) {
    const value = input[key];
    if (typeof value !== "string" || !value) continue;
    let shown = value;
    if (cwd !== undefined && (key === "file_path" || key === "path") && isAbsolute(value)) {
      const rel = relative(cwd, value);
      if (rel && !rel.startsWith("..") && !isAbsolute(rel)) shown = rel;
    }
    return `${name}(${oneLine(shown, max)})`;
  }
  const json = JSON.stringify(input);
  return json === "{}" ? name : `${name}(${cut(printable(json), max)})`;
}

/** The first `maxLines` lines of a tool's output, each cut to `width`, plus a count of the rest. */
/** A failed call's lines are cut only this far out: the reason for a refusal or an error (and what
 * to do about it) is often at the end of one long line, which the terminal wraps. */
export const ERROR_LINE_CHARS = 2000;

export function excerptOutput(output: string, maxLines: number, width: number): string[] {
  const trimmed = output.replace(/\s+$/, "");
  if (!trimmed) return ["(no output)"];
  const lines = trimmed.split(/\r?\n/);
  const shown = lines.slice(0, maxLines).map((line) => cut(printable(line), width));
  if (lines.length > maxLines) shown.push(`… +${lines.length - maxLines} lines`);
  return shown;
}

/** The styles and sizes both terminal views (a run's, a chat's) print with. */
export function terminalStyle(stdout: Sink, stderr: Sink, opts: Omit<RendererOptions, "cwd">) {
  const paint = (code: string) => (text: string) => (opts.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    bold: paint("1"),
    dim: paint("2"),
    strike: paint("9"),
    red: paint("31"),
    green: paint("32"),
    yellow: paint("33"),
    width: opts.width ?? 160,
    /** Read as output comes: a chat turns `full` on and off (Ctrl+O). */
    get maxLines() {
      return opts.full ? Infinity : (opts.outputLines ?? 4);
    },
    // When both streams are one terminal, pipe or file they share one cursor, so line breaks must
    // account for what either of them last wrote.
    shared: opts.shared ?? Boolean(stdout.isTTY && stderr.isTTY),
  };
}

export function createRenderer(stdout: Sink, stderr: Sink, opts: RendererOptions): Renderer {
  const style = terminalStyle(stdout, stderr, opts);
  const { bold, dim, red, yellow, width, maxLines, shared } = style;
  const calls = new Map<string, { header: string; toolName: string; input?: Record<string, unknown>; live?: LiveLines }>();
  let wroteText = false;
  let textEndsWithNewline = true;
  let cursorAtLineStart = true;
  let toolsSinceText = false;
  let lastHeader: string | undefined;
  /** finalOnly: the text of the turn under way, which is the answer unless a tool call follows. */
  let pending = "";
  // A terminal in colour shows the reply's markdown rendered (after its escape sequences are
  // dropped); piped or plain, the reply is as the model wrote it.
  const markdown = opts.finalOnly ? undefined : markdownFor(stdout, opts.color);

  function err(text: string): void {
    if (shared && !cursorAtLineStart) stderr.write("\n");
    stderr.write(text);
    cursorAtLineStart = true;
  }

  /** Whether thinking is being printed (its header is out), and whether it ended a line. */
  let thinking: { atLineStart: boolean } | undefined;

  function think(delta: string): void {
    const shown = printable(delta.replace(/\r\n?/g, "\n"));
    if (!shown) return;
    if (!thinking) err(`${dim("✻ Thinking…")}\n`);
    thinking = { atLineStart: shown.endsWith("\n") };
    stderr.write(dim(shown));
    cursorAtLineStart = thinking.atLineStart;
  }

  /** Ends the thinking shown with a blank line, before whatever comes next. */
  function endThinking(): void {
    if (!thinking) return;
    stderr.write(thinking.atLineStart ? "\n" : "\n\n");
    thinking = undefined;
    cursorAtLineStart = true;
  }

  function text(delta: string): void {
    if (opts.finalOnly) pending += delta;
    else write(markdown ? markdown.push(printable(delta)) : delta);
  }

  function write(delta: string): void {
    if (!delta) return;
    if (toolsSinceText && wroteText) {
      // A new paragraph of the reply after tool calls: keep it apart from the text before.
      stdout.write(shared ? "\n" : textEndsWithNewline ? "\n" : "\n\n");
    }
    toolsSinceText = false;
    stdout.write(delta);
    wroteText = true;
    textEndsWithNewline = delta.endsWith("\n");
    cursorAtLineStart = textEndsWithNewline;
  }

  return {
    event(event) {
      if (event.type === "assistant.thinking") {
        if (opts.thinking && event.agentId === undefined) think(event.text);
        return;
      }
      endThinking();
      switch (event.type) {
        case "assistant.delta":
          // A sub-agent's text is its report to the main agent, not part of the reply.
          if (event.agentId === undefined) text(event.text);
          break;
        case "assistant.retracted":
          // Text withdrawn (reasoning that looked like the reply until its closing tag) leaves the
          // answer still to print; a terminal keeps what it has shown.
          if (event.agentId === undefined && !event.thinking && opts.finalOnly && pending.endsWith(event.text)) pending = pending.slice(0, -event.text.length);
          break;
        case "tool.started": {
          // Sub-agents' tool calls are nested under the call that started them.
          const indent = event.agentId === undefined ? "" : "    ";
          if (event.agentId === undefined) {
            if (markdown) write(markdown.end());
            const said = pending.replace(/\s+$/, "");
            if (said.trim()) err(`${said}\n`);
            pending = "";
          }
          const label = callLabel(event.toolName, event.input, (name) => describeToolCall(name, event.input, opts.cwd));
          const header = `${indent}${bold("●")} ${label}`;
          calls.set(event.toolUseId, { header, toolName: event.toolName, input: event.input, ...(isMcpTool(event.toolName) && { live: { partial: "", shown: false } }) });
          toolsSinceText = true;
          lastHeader = event.toolUseId;
          err(`${header}\n`);
          break;
        }
        case "tool.output": {
          const call = calls.get(event.toolUseId);
          const live = call?.live;
          if (!call || !live) break;
          // Once the output is sent with its middle cut, the rest comes with the result.
          if (event.replace) {
            call.live = undefined;
            break;
          }
          const lines = live.partial + event.text;
          const end = lines.lastIndexOf("\n") + 1;
          live.partial = lines.slice(end);
          if (end === 0) break;
          const indent = event.agentId === undefined ? "" : "    ";
          const shown = lastHeader === event.toolUseId ? [] : [call.header];
          lastHeader = event.toolUseId;
          for (const text of lines.slice(0, end - 1).split("\n")) {
            shown.push(`${indent}  ${live.shown ? " " : dim("⎿")}  ${dim(cut(printable(text), width))}`);
            live.shown = true;
          }
          err(`${shown.join("\n")}\n`);
          break;
        }
        case "tool.completed": {
          const call = calls.get(event.toolUseId);
          const header = call?.header ?? `${bold("●")} tool`;
          calls.delete(event.toolUseId);
          const indent = event.agentId === undefined ? "" : "    ";
          // Concurrent tools finish in any order: repeat the header when another came in between.
          const lines: string[] = lastHeader === event.toolUseId ? [] : [header];
          lastHeader = undefined;
          const excerpt = () => excerptOutput(event.output, maxLines, event.isError ? Math.max(width, ERROR_LINE_CHARS) : width).map((line, i) => (event.isError && i === 0 ? red(line) : dim(line)));
          const shown = call ? callBody({ toolName: call.toolName, input: call.input, output: event.output, failed: event.isError }, { width, full: opts.full === true, cwd: opts.cwd }, style, excerpt) : excerpt();
          const mark = event.isError ? red("✗") : dim("⎿");
          shown.forEach((line, i) => lines.push(`${indent}  ${i === 0 ? mark : " "}  ${line}`));
          err(`${lines.join("\n")}\n`);
          break;
        }
        case "notice": {
          const indent = event.agentId === undefined ? "" : "    ";
          const line = event.level === "error" ? red(`✗ ${event.message}`) : event.level === "warning" ? yellow(`! ${event.message}`) : dim(`· ${event.message}`);
          err(`${indent}${line}\n`);
          break;
        }
      }
    },
    finish() {
      endThinking();
      if (markdown) write(markdown.end());
      write(pending);
      pending = "";
      if (wroteText && !textEndsWithNewline) {
        stdout.write("\n");
        textEndsWithNewline = true;
        cursorAtLineStart = true;
      }
    },
  };
}
