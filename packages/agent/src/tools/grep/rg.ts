// Grep's engine on ripgrep: the binary is spawned with arguments (no shell) and its output parsed.
// Like Claude Code's Grep, it searches hidden files, skips version-control directories, and
// otherwise ignores what ripgrep ignores (.gitignore inside a git repository, .ignore, .rgignore).
import { spawn } from "node:child_process";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { displayPath } from "../paths.ts";
import {
  type ContentQuery,
  type ContentResult,
  createLineCollector,
  type EngineError,
  type FileCount,
  formatLine,
  type GrepEngine,
  type GrepQuery,
} from "./engine.ts";

const VCS_DIRS = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];
const MAX_STDERR_CHARS = 4_000;

export function ripgrepEngine(rgPath: string): GrepEngine {
  return {
    async files(query) {
      const run = await runRg(rgPath, query, ["--files-with-matches", "--null"], undefined);
      if ("error" in run) return run;
      const root = searchDir(query);
      const files = run.stdout.split("\0").filter(Boolean).map((p) => path.join(root, p));
      return query.skipFile ? files.filter((file) => !query.skipFile!(file)) : files;
    },
    async counts(query) {
      const run = await runRg(rgPath, query, [query.multiline ? "--count-matches" : "--count", "--null", "--sort", "path"], undefined);
      if ("error" in run) return run;
      const root = searchDir(query);
      const counts: FileCount[] = [];
      for (const line of run.stdout.split("\n")) {
        const at = line.lastIndexOf("\0");
        if (at === -1) continue;
        const file = path.join(root, line.slice(0, at));
        if (!query.skipFile?.(file)) counts.push({ file, count: Number(line.slice(at + 1)) });
      }
      return counts;
    },
    content(query) {
      return searchContent(rgPath, query);
    },
  };
}

/** Where ripgrep runs: the directory searched, or the directory of the file searched. Paths in its
 * output are relative to it, and so are path-like globs. */
function searchDir(query: GrepQuery): string {
  return query.rootIsFile ? path.dirname(query.root) : query.root;
}

function baseArgs(query: GrepQuery): string[] {
  const args = ["--no-config", "--color", "never", "--no-messages", "--hidden", "--with-filename"];
  for (const dir of VCS_DIRS) args.push("--glob", `!${dir}`);
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.multiline) args.push("--multiline", "--multiline-dotall");
  for (const glob of query.globs) args.push("--glob", glob);
  if (query.type !== undefined) args.push("--type", query.type);
  return args;
}

function target(query: GrepQuery): string {
  return query.rootIsFile ? path.basename(query.root) : ".";
}

type RgRun = { stdout: string };

/** Runs ripgrep to the end, or until `onText` returns false. Exit code 1 (no match) is success. */
function runRg(rgPath: string, query: GrepQuery, modeArgs: string[], onText: ((text: string) => boolean) | undefined, pcre2 = false): Promise<RgRun | EngineError> {
  const args = [...baseArgs(query), ...modeArgs, ...(pcre2 ? ["--pcre2"] : []), "--regexp", query.pattern, "--", target(query)];
  return new Promise((resolve) => {
    const child = spawn(rgPath, args, { cwd: searchDir(query), stdio: ["ignore", "pipe", "pipe"] });
    const decoder = new StringDecoder("utf8");
    let stdout = "";
    let stderr = "";
    let stopped = false;
    const stop = () => {
      stopped = true;
      child.kill("SIGKILL");
    };
    const onAbort = () => stop();
    query.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      if (stopped) return;
      const text = decoder.write(chunk);
      if (onText) {
        if (!onText(text)) stop();
      } else {
        stdout += text;
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => {
      query.signal.removeEventListener("abort", onAbort);
      resolve({ error: `Cannot run ripgrep: ${error.message}` });
    });
    child.on("close", (code) => {
      query.signal.removeEventListener("abort", onAbort);
      if (query.signal.aborted) return resolve({ error: "Interrupted by user" });
      if (stopped || code === 0 || code === 1) {
        if (onText && !stopped) onText(decoder.end());
        return resolve({ stdout: stdout + (onText ? "" : decoder.end()) });
      }
      // Exit code 2 also covers unreadable files met along the way; matches found still count.
      if (stdout !== "" && !/regex|unrecognized file type/.test(stderr)) return resolve({ stdout });
      if (!pcre2 && /look-around|backreference/.test(stderr)) {
        return resolve(runRg(rgPath, query, modeArgs, onText, true));
      }
      resolve({ error: describeRgError(query, stderr) });
    });
  });
}

function describeRgError(query: GrepQuery, stderr: string): string {
  const message = stderr.replace(/^rg: /gm, "").trim();
  const type = /unrecognized file type: (\S+)/.exec(message);
  if (type) {
    return `Unknown file type "${type[1]}". Common types: c, cpp, cs, css, go, html, java, js, json, kotlin, md, php, py, rb, rust, sh, sql, swift, ts, yaml. Or use glob instead.`;
  }
  if (/regex parse error/.test(message)) {
    return `Invalid regular expression ${JSON.stringify(query.pattern)}:\n${message}\nGrep uses ripgrep's regular expression syntax; escape special characters such as ( ) [ ] { } . * + ? | with a backslash to match them literally.`;
  }
  if (/literal "\\n" is not allowed/.test(message)) {
    return `The pattern ${JSON.stringify(query.pattern)} contains a line break, which matches only across lines: set multiline: true for that, or search for one line of it.`;
  }
  return `ripgrep failed: ${message || "no error message"}`;
}

type RgMessage = {
  type: string;
  data?: { path?: { text?: string }; lines?: { text?: string; bytes?: string }; line_number?: number };
};

/** Content mode through ripgrep's JSON output, which tells matches from context lines whether or
 * not line numbers are shown. */
async function searchContent(rgPath: string, query: ContentQuery): Promise<ContentResult | EngineError> {
  const collector = createLineCollector(query);
  const context = query.before > 0 || query.after > 0;
  const root = searchDir(query);
  const modeArgs = ["--json", "--sort", "path"];
  if (query.before > 0) modeArgs.push("--before-context", String(query.before));
  if (query.after > 0) modeArgs.push("--after-context", String(query.after));
  let pending = "";
  let lastFile: string | undefined;
  let lastLine = 0;
  let printed = false;
  const onMessage = (message: RgMessage): boolean => {
    if (message.type !== "match" && message.type !== "context") return true;
    const data = message.data ?? {};
    const file = data.path?.text;
    if (file === undefined) return true;
    const absolute = path.join(root, file);
    if (query.skipFile?.(absolute)) return true;
    const shown = displayPath(query.cwd, absolute);
    const raw = data.lines?.text ?? (data.lines?.bytes !== undefined ? Buffer.from(data.lines.bytes, "base64").toString("utf8") : "");
    const lines = raw.replace(/\r?\n$/, "").split(/\r?\n/);
    const first = data.line_number ?? 0;
    if (context && printed && (file !== lastFile || first > lastLine + 1)) {
      if (!collector.push("--")) return false;
    }
    for (let i = 0; i < lines.length; i++) {
      const line = formatLine(shown, query.numbered ? first + i : undefined, message.type === "match", lines[i]);
      if (!collector.push(line)) return false;
    }
    printed = true;
    lastFile = file;
    lastLine = first + lines.length - 1;
    return true;
  };
  const run = await runRg(rgPath, query, modeArgs, (text) => {
    pending += text;
    let start = 0;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
      const line = pending.slice(start, newline);
      start = newline + 1;
      if (line !== "" && !onMessage(JSON.parse(line) as RgMessage)) return false;
    }
    pending = pending.slice(start);
    return true;
  });
  if ("error" in run) return run;
  return collector.result;
}
