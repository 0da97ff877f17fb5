// Running the commands that produce credentials: a profile's credential_process, and the
// awsCredentialExport, awsAuthRefresh and apiKeyHelper commands of Claude Code's settings.
import { spawn } from "node:child_process";

type Env = Readonly<Record<string, string | undefined>>;

/** Enough for any credentials; more is not kept. */
const MAX_OUTPUT_CHARS = 64 * 1024;

export type CommandRun = {
  /** The program and its arguments, run as they are (no shell). */
  argv: readonly string[];
  env: Env;
  timeoutMs: number;
  /** The command's output goes to this process's stderr, for the user to read (a sign-in's code or
   * address), instead of being returned. */
  shown?: boolean;
  cwd?: string;
  /** What the command gives, for the time limit's message (default "credentials", "answer" when shown). */
  gives?: string;
  /** Which line of its stderr a failure quotes: the first that is not blank (default), or its last. */
  stderrLine?: "first" | "last";
};

/** The command's stdout. Rejects with an Error whose message says what went wrong, to follow the
 * command's name: "failed with exit code 3: <the first line of its stderr>", "gave no credentials
 * within 30 s", "could not run: …". */
export function runCommand(run: CommandRun): Promise<string> {
  const [file, ...args] = run.argv;
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    // A process group of its own: what the command starts (a browser sign-in waiting for the user)
    // can keep its output open after the command is gone, so the time limit stops the whole group.
    const last = run.stderrLine === "last";
    const child = spawn(file, args, { env: run.env as NodeJS.ProcessEnv, ...(run.cwd !== undefined && { cwd: run.cwd }), stdio: ["ignore", run.shown ? 2 : "pipe", "pipe"], detached: true });
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Gone already.
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
      reject(new Error(`gave no ${run.gives ?? (run.shown ? "answer" : "credentials")} within ${run.timeoutMs / 1000} s`));
    }, run.timeoutMs);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out = (out + chunk).slice(0, MAX_OUTPUT_CHARS)));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      if (run.shown) process.stderr.write(chunk);
      err = last ? (err + chunk).slice(-MAX_OUTPUT_CHARS) : (err + chunk).slice(0, MAX_OUTPUT_CHARS);
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`could not run: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(out);
      const quoted = last ? err.trim().split("\n").at(-1) : err.split("\n").map((line) => line.trim()).find((line) => line !== "");
      reject(new Error(`failed with ${code === null ? `signal ${signal}` : `exit code ${code}`}${quoted ? `: ${quoted}` : ""}`));
    });
  });
}

/** A command of Claude Code's settings, run as Claude Code runs them: through /bin/sh. */
export function shellCommand(command: string): string[] {
  return ["/bin/sh", "-c", command];
}

/** The words of a credential_process line, split as the AWS CLI splits it (Python's shlex in POSIX
 * mode) and then run without a shell: the line means what it means to every other AWS tool, and
 * `$VAR`, `;` or `|` in it are plain characters. Quotes group words ('…' literally, "…" with \" and
 * \\ escaped); a backslash outside quotes escapes the next character. Throws an Error saying why a
 * line cannot be split. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error("no closing quotation");
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= "";
      for (i++; ; i++) {
        if (i >= line.length) throw new Error("no closing quotation");
        if (line[i] === '"') break;
        if (line[i] === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) i++;
        word += line[i];
      }
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new Error("it ends with a backslash that escapes nothing");
      word = (word ?? "") + line[++i];
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}
