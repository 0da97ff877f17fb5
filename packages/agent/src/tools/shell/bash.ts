import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { defineTool } from "../../define-tool.ts";
import { wholeSetting } from "../../env/number.ts";
import { isDirectory } from "../../files/make-dirs.ts";
import { forgetGroup, groupAlive, signalGroup, spawnGroup } from "../../process/process-groups.ts";
import { withSessionEnv } from "./session-env.ts";
import type { Tool, ToolContext, ToolOutput } from "../../types.ts";
import { runsInSandbox } from "../../sandbox/policy.ts";
import type { SandboxedCommand } from "../../sandbox/runtime.ts";
import { adoptShell, startShell } from "./background-shells.ts";
import { shellCapProblem } from "./shell-cap.ts";
import { createOutputBuffer } from "./output-buffer.ts";
import { maintainsProjectCwd, type ShellCwd } from "./cwd.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "../../truncate.ts";
import type { ToolState } from "../state.ts";

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Claude Code's default and largest BASH_MAX_OUTPUT_LENGTH: the characters of a command's output
 * that enter the conversation, its middle cut beyond them. */
export const BASH_MAX_OUTPUT_LENGTH = MAX_TOOL_OUTPUT_CHARS;
const BASH_MAX_OUTPUT_LENGTH_CAP = 150_000;
/** Output kept from each end of a long stream, in bytes, per character the conversation takes of
 * it (14,000 bytes each for the default 30,000); the middle is dropped. */
const KEPT_BYTES_PER_CHAR = 14_000 / 30_000;
/** Characters left, at a small limit, for what comes besides the kept ends: the note of what was
 * omitted and how the command ended. Without it a short limit cut the output's end away. */
const OUTPUT_NOTES_CHARS = 160;
/** How long to keep reading after bash exits while something it left behind holds the output open. */
const CLOSE_GRACE_MS = 250;
/** Where a command's shell writes the directory it ended in: file descriptor 3 as it is spawned,
 * moved this high at once so that the command has 3 (and the low ones scripts use) to itself. */
const CWD_FD = 57;
/** How long after bash exits its report of where it ended may still be on its way. */
const CWD_REPORT_MS = 20;

/** The tool's description, with the run's timeout limits. */
const describe = ({ defaultMs, maxMs }: BashLimits, maintain: boolean) => `Runs a bash command in the working directory and returns its output.

Usage:
- The command runs with \`bash -c\` in the working directory, with no input (stdin is closed): never run commands that wait for input or open an editor or pager. Pass flags such as --yes or --no-edit where a tool would otherwise ask.
- stdout and stderr come back together, in the order they were written. A non-zero exit code is reported and marks the result as an error.
- timeout is in milliseconds: default ${defaultMs} (${minutes(defaultMs)}), at most ${maxMs} (${minutes(maxMs)}). When it passes, the command and every process it started are killed.
- Very long output keeps its beginning and end; the middle is cut. Filter noisy output (grep, tail, head, --quiet) to keep what matters.
${cwdLine(maintain)}
- Quote paths that contain spaces: cd "/path/with spaces".
- Use the dedicated tools instead of shell equivalents: Glob rather than find or ls -R, Grep rather than grep or rg, Read rather than cat, head or tail, Edit rather than sed or awk, Write rather than echo or cat with redirection.
- Independent commands can be sent as separate Bash calls in one reply; they run at the same time. Dependent commands belong in one call joined with &&.
- run_in_background: true starts the command and returns at once with a shell ID, for servers, watchers and other long-running commands. Read its new output with BashOutput and stop it with KillShell. Background commands have no timeout, keep running after this reply, and are stopped when the conversation ends. There is no need to add "&" to the command.
- Without run_in_background, do not start servers or watchers that never exit; they hold the call until the timeout.
- With git: never change git config, never force-push, skip hooks or rewrite published history unless the user asked for it, and only commit when asked.
- description: a short note of what the command does, in active voice (for example "Run the unit tests").`;

/** What the model is told of where commands start: as Claude Code's, the working directory carries
 * over unless CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR is set; nothing else of the shell does. */
const cwdLine = (maintain: boolean) =>
  maintain
    ? "- Each call starts a fresh shell in the project's directory: `cd` and exported variables do not carry over to the next call. Use absolute paths or chain commands with && instead."
    : "- The working directory carries over: after `cd dir`, the next call starts in dir. A command that ends outside the working directories puts the shell back in the project's directory, and its output says so. Exported variables and other shell state do not carry over; chain dependent commands with && instead.";

/** What a run with the sandbox on is told besides (sandboxedBashTool). */
const sandboxNote = `
- Commands run inside a sandbox: they can write only in the working directories (not their settings, git hooks or git config) and $TMPDIR, and reach only the network domains the settings allow. When a command fails only because of the sandbox (a write refused as "Read-only file system", a blocked connection), you may call it again with dangerouslyDisableSandbox: true; the user is then asked to approve it, unless the settings forbid leaving the sandbox.`;

/** A command's time limits, in milliseconds: when it gives none, and the most it may ask for. With
 * `maintainCwd` (CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR), the tool tells the model that every
 * command starts in the project's directory. */
export type BashLimits = { defaultMs: number; maxMs: number; maxOutputChars: number; maintainCwd?: boolean };

const DEFAULT_LIMITS: BashLimits = { defaultMs: BASH_DEFAULT_TIMEOUT_MS, maxMs: BASH_MAX_TIMEOUT_MS, maxOutputChars: BASH_MAX_OUTPUT_LENGTH };

const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} minute${ms === 60_000 ? "" : "s"}` : `${ms / 1000} seconds`);

const parametersFor = ({ defaultMs, maxMs }: BashLimits) => ({
  command: z.string().min(1).describe("The command to run"),
  timeout: z.number().int().positive().max(maxMs).optional().describe(`Timeout in milliseconds (default ${defaultMs}, max ${maxMs})`),
  description: z.string().optional().describe("What the command does, in 5-10 words"),
  run_in_background: z.boolean().optional().describe("Run the command in the background and return at once; read its output later with BashOutput"),
});

type BashInput = { command: string; timeout?: number; run_in_background?: boolean; dangerouslyDisableSandbox?: boolean };

function makeBashTool(limits: BashLimits, sandboxed: boolean): Tool {
  const parameters = parametersFor(limits);
  const tool = sandboxed
    ? // Told about the sandbox, and able to ask to leave it; a run without the sandbox sends neither,
      // so its requests stay as they were.
      defineTool({
        name: "Bash",
        description: describe(limits, limits.maintainCwd === true) + sandboxNote,
        parameters: z.strictObject({
          ...parameters,
          dangerouslyDisableSandbox: z.boolean().optional().describe("Run this command outside the sandbox (needs the user's approval); only after it failed because of the sandbox"),
        }),
        execute: (input, ctx) => runBash(input, ctx, limits),
      })
    : defineTool({ name: "Bash", description: describe(limits, limits.maintainCwd === true), parameters: z.strictObject(parameters), execute: (input, ctx) => runBash(input, ctx, limits) });
  const moving = { ...tool, backgroundable: true };
  return limits.maxOutputChars === BASH_MAX_OUTPUT_LENGTH ? moving : { ...moving, maxOutputChars: limits.maxOutputChars };
}

export const bashTool = makeBashTool(DEFAULT_LIMITS, false);
/** Bash as a run with the sandbox on has it. */
export const sandboxedBashTool = makeBashTool(DEFAULT_LIMITS, true);

const made = new Map<string, Tool>();

/** The Bash tool of a run: Claude Code's BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS, whole
 * numbers of milliseconds, and BASH_MAX_OUTPUT_LENGTH, of characters (at most 150,000), from the
 * environment or the settings' env, set its limits; other values are ignored.
 * CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR changes what it says of `cd`. One tool per set of
 * limits, so that runs alike send the same tool definitions. */
export function bashToolFor(env: Readonly<Record<string, string | undefined>>, sandboxed: boolean): Tool {
  // Read as env/settings.ts checks them at start: a value it would refuse leaves the default here.
  const read = (name: string, unit: string, fallback: number) => wholeSetting(env, name, unit, 1).value ?? fallback;
  const maxMs = read("BASH_MAX_TIMEOUT_MS", "milliseconds", BASH_MAX_TIMEOUT_MS);
  const limits = {
    defaultMs: Math.min(read("BASH_DEFAULT_TIMEOUT_MS", "milliseconds", BASH_DEFAULT_TIMEOUT_MS), maxMs),
    maxMs,
    maxOutputChars: Math.min(read("BASH_MAX_OUTPUT_LENGTH", "characters", BASH_MAX_OUTPUT_LENGTH), BASH_MAX_OUTPUT_LENGTH_CAP),
    maintainCwd: maintainsProjectCwd(env),
  };
  if (limits.defaultMs === DEFAULT_LIMITS.defaultMs && limits.maxMs === DEFAULT_LIMITS.maxMs && limits.maxOutputChars === DEFAULT_LIMITS.maxOutputChars && !limits.maintainCwd) return sandboxed ? sandboxedBashTool : bashTool;
  const key = `${limits.defaultMs}/${limits.maxMs}/${limits.maxOutputChars}/${limits.maintainCwd}/${sandboxed}`;
  let tool = made.get(key);
  if (!tool) made.set(key, (tool = makeBashTool(limits, sandboxed)));
  return tool;
}

/** A Bash call: in the sandbox when the run has it on and the call runs inside it (runsInSandbox). */
async function runBash({ command, timeout, run_in_background, dangerouslyDisableSandbox }: BashInput, { cwd: project, signal, state, env, sandbox, progress, shell, onBackground }: ToolContext, limits: BashLimits): Promise<ToolOutput> {
  const { dir: cwd, note: startNote } = shell?.start() ?? { dir: project };
  const asked = command;
  // Spawning in a directory that is gone fails as if bash were missing (ENOENT): say what it is.
  if (!isDirectory(cwd)) {
    return { content: `The command was not run: its working directory ${cwd} no longer exists (it was removed or renamed), and commands run there. Recreate it, for example by writing a file into it with Write.`, isError: true };
  }
  // Whether it runs in the sandbox is the command's own affair; what it runs includes the env file.
  const inSandbox = runsInSandbox(command, dangerouslyDisableSandbox, sandbox);
  command = withSessionEnv(command, state);
  // Inside the sandbox too: it is the command's own shell that knows where it ended.
  const tracked = shell !== undefined && !run_in_background;
  if (tracked) command = reportingCwd(command);
  let launch: SandboxedCommand | undefined;
  if (inSandbox) {
    if (sandbox.unavailable !== undefined && sandbox.failIfUnavailable) {
      return { content: `The command was not run: the sandbox cannot run here (${sandbox.unavailable}), and the settings (sandbox.failIfUnavailable) forbid running commands outside it.`, isError: true };
    }
    if (sandbox.unavailable === undefined) {
      if (signal.aborted) return { content: "Interrupted by user", isError: true };
      try {
        // Imported for a sandboxed command only: a run without the sandbox starts sooner.
        const { wrapInSandbox } = await import("../../sandbox/runtime.ts");
        launch = await wrapInSandbox(command, sandbox, signal);
      } catch (error) {
        if (signal.aborted) return { content: "Interrupted by user", isError: true };
        return { content: `The command was not run: the sandbox could not be set up for it: ${error instanceof Error ? error.message : String(error)}`, isError: true };
      }
    }
  }
  if (run_in_background) return withNote(startInBackground(command, cwd, state, env, launch), startNote);
  const startedAt = new Date();
  /** Why a request to move the command to the background was turned down (too many running). */
  let notMoved: string | undefined;
  // Moved to the background, the command becomes a background shell as run_in_background starts
  // one: its directory moves no shell, and the sandbox is released when it exits.
  const background: Backgrounding | undefined =
    onBackground && state
      ? {
          subscribe: onBackground,
          adopt(child, output) {
            if (state.disposed) return undefined;
            notMoved = shellCapProblem(state.shells, env ?? process.env);
            if (notMoved !== undefined) return undefined;
            const adopted = adoptShell(state.shells, asked, child, cwd, state.limits.backgroundOutputBytes, { output, startedAt, ...(launch && { onExit: launch.release }) });
            return `Command was manually backgrounded by user with ID: ${adopted.id}. Read its output with BashOutput (bash_id "${adopted.id}"), and stop it with KillShell.`;
          },
        }
      : undefined;
  let backgrounded = false;
  try {
    const { ended, backgrounded: moved, ...output } = await runCommand(launch?.command ?? command, cwd, timeout ?? limits.defaultMs, signal, env, state, keptBytesFor(limits.maxOutputChars), progress, tracked, background);
    if (moved) {
      backgrounded = true;
      return withNote(output, startNote);
    }
    const endNote = shell?.ended(cwd, ended);
    const shown = notMoved === undefined ? output : { ...output, content: `${output.content}\n\nThe user asked to move this command to the background, but it went on in the foreground: ${notMoved}` };
    return withNote(launch ? withBlocked(shown, launch.blocked()) : shown, startNote ?? endNote);
  } finally {
    if (!backgrounded) launch?.release();
  }
}

/** How a running command moves to the background: `subscribe` (ToolContext.onBackground) hears
 * the user's request; `adopt` registers the running child, with what it printed so far, as a
 * background shell and answers the call's result, or undefined when it cannot (the conversation
 * has ended). */
type Backgrounding = {
  subscribe(listener: () => boolean): () => void;
  adopt(child: ChildProcess, output: string): string | undefined;
};

/** `command` with its shell writing, as it exits, the directory it ended in (`pwd -P`) to
 * CWD_FD. An EXIT trap, so that `exit 3` and `set -e` report too; a command that sets its own
 * EXIT trap, or ends in `exec`, reports nothing and moves nothing. On the command's own line, so
 * that bash's line numbers in messages stay right. */
function reportingCwd(command: string): string {
  return `trap 'builtin pwd -P >&${CWD_FD} 2>/dev/null' EXIT; { exec ${CWD_FD}>&3 3>&-; } 2>/dev/null; ${command}`;
}

/** The output with Claude Code's note of the shell put back in the project's directory, on a line
 * of its own after everything else. */
function withNote(output: ToolOutput, note: string | undefined): ToolOutput {
  if (note === undefined) return output;
  const text = typeof output.content === "string" ? output.content : "";
  return { ...output, content: text === "(Command completed with no output)" ? note : `${text}\n${note}` };
}

/** A sandboxed command's output with what the sandbox refused it, which the command itself may
 * report only as a refused connection or an HTTP 403. */
function withBlocked(output: ToolOutput, blocked: string[]): ToolOutput {
  if (blocked.length === 0) return output;
  const lines = [...new Set(blocked)];
  const note = `The sandbox blocked:\n${lines.map((line) => `- ${line}`).join("\n")}\nThe sandbox reaches only the domains of sandbox.network.allowedDomains and WebFetch(domain:…) allow rules.`;
  const text = typeof output.content === "string" ? output.content : "";
  return { ...output, content: text === "(Command completed with no output)" ? note : `${text}\n\n${note}` };
}

function startInBackground(command: string, cwd: string, state: ToolState | undefined, env: Readonly<Record<string, string>> | undefined, launch: SandboxedCommand | undefined): ToolOutput {
  const refuse = (content: string): ToolOutput => {
    launch?.release();
    return { content, isError: true };
  };
  if (!state) return refuse("Background commands are not available here (there is no tool state to keep them in). Run the command without run_in_background.");
  if (state.disposed) return refuse("Background commands can no longer be started: this conversation has ended.");
  const full = shellCapProblem(state.shells, env ?? process.env);
  if (full !== undefined) return refuse(`The command was not started: ${full} Or run it without run_in_background.`);
  const shell = startShell(state.shells, command, cwd, state.limits.backgroundOutputBytes, env, launch && { launch: launch.command, onExit: launch.release });
  return { content: `Command running in background with ID: ${shell.id}` };
}

/** Bytes kept from each end of a long output so that both ends, and the notes, fit in `maxChars`. */
function keptBytesFor(maxChars: number): number {
  return Math.max(0, Math.min(Math.round(maxChars * KEPT_BYTES_PER_CHAR), Math.floor((maxChars - OUTPUT_NOTES_CHARS) / 2)));
}

type Ending = "exited" | "timeout" | "aborted";

/** Runs the command in its own process group so that a kill reaches everything it started. */
function runCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
  env: Readonly<Record<string, string>> | undefined,
  state: ToolState | undefined,
  keptBytes: number,
  progress: ((text: string) => void) | undefined,
  tracked: boolean,
  background?: Backgrounding,
): Promise<{ content: string; isError?: boolean; ended?: string; backgrounded?: true }> {
  if (signal.aborted) return Promise.resolve({ content: "Interrupted by user", isError: true });
  return new Promise((resolve) => {
    const output = createOutputBuffer(keptBytes, keptBytes);
    // Redirecting inside the shell makes stderr share stdout's pipe, which keeps the two in order.
    // It sits on the command's own line so that bash's line numbers in messages stay right.
    const child = spawnGroup(`exec 2>&1; ${command}`, { cwd, ...(env && { env }), fd3: tracked });
    const where = child.stdio[3] as Readable | undefined;
    let reported = "";
    // Done with as soon as the shell has said where it ended, or shortly after it exited: what it
    // left running holds the pipe too, and must not hold the call.
    const stopListening = () => where?.destroy();
    where?.setEncoding("utf8");
    where?.on("data", (text: string) => {
      reported += text;
      if (reported.includes("\n")) stopListening();
    });
    where?.on("error", () => {});
    let ending: Ending = "exited";
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    let exited = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const killGroup = (why: Ending) => {
      if (ending === "exited") ending = why;
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    };
    const onAbort = () => killGroup("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => killGroup("timeout"), timeoutMs);

    const settle = (result: { content: string; isError?: boolean }) => {
      if (settled) return;
      settled = true;
      unsubscribe?.();
      // What the command left running (`server &`) is stopped with the conversation; without a
      // state to keep it in, now.
      if (child.pid !== undefined && groupAlive(child.pid)) {
        if (state && !state.disposed) state.strays.add(child.pid);
        else killGroup("exited");
      } else if (child.pid !== undefined) forgetGroup(child.pid);
      clearTimeout(timer);
      clearTimeout(graceTimer);
      signal.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      stopListening();
      const ended = reported.endsWith("\n") ? reported.slice(0, -1) : undefined;
      resolve(ended !== undefined && ending === "exited" ? { ...result, ended } : result);
    };
    const report = (leftRunning: boolean) =>
      settle(describeEnding(output.text(), ending, exitCode, exitSignal, timeoutMs, leftRunning));

    // Characters split between two chunks are handed over whole, with the chunk that ends them.
    const decoder = progress && new StringDecoder("utf8");
    const onData = (chunk: Buffer) => {
      output.push(chunk);
      if (decoder && !settled) progress!(decoder.write(chunk));
    };
    const onError = (error: Error) => settle({ content: `Cannot run the command in ${cwd}: ${error.message}`, isError: true });
    const onExit = (code: number | null, sig: NodeJS.Signals | null) => {
      exited = true;
      exitCode = code;
      exitSignal = sig;
      if (where) setTimeout(stopListening, CWD_REPORT_MS);
      graceTimer = setTimeout(() => report(true), CLOSE_GRACE_MS);
    };
    const onClose = () => report(false);
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("error", onError);
    child.on("exit", onExit);
    child.on("close", onClose);

    // Moved to the background while it runs: the call answers now, and the child, its output so
    // far and from now on, its pipes and its process group, become the background shell's. A
    // command that has exited is finishing on its own and is not moved, nor one the run's cancel or
    // the timeout has killed (its exit not yet seen). The cwd report pipe is left to drain: closing
    // it early could fail the command's exit trap.
    const unsubscribe = background?.subscribe(() => {
      if (settled || exited || ending !== "exited" || child.pid === undefined) return false;
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("error", onError);
      child.off("exit", onExit);
      child.off("close", onClose);
      const content = background.adopt(child, output.text());
      if (content === undefined) {
        child.stdout?.on("data", onData);
        child.stderr?.on("data", onData);
        child.on("error", onError);
        child.on("exit", onExit);
        child.on("close", onClose);
        return false;
      }
      settled = true;
      unsubscribe?.();
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve({ content, backgrounded: true });
      return true;
    });
  });
}

function describeEnding(
  text: string,
  ending: Ending,
  exitCode: number | null,
  exitSignal: NodeJS.Signals | null,
  timeoutMs: number,
  leftRunning: boolean,
): { content: string; isError?: boolean } {
  const notes: string[] = [];
  let isError = true;
  if (ending === "timeout") notes.push(`Command timed out after ${timeoutMs} ms and was killed, with every process it started.`);
  else if (ending === "aborted") notes.push("Command was interrupted by the user and killed.");
  else if (exitSignal) notes.push(`Command was killed by signal ${exitSignal}.`);
  else if (exitCode !== 0) notes.push(`Exit code ${exitCode}`);
  else isError = false;
  if (leftRunning) {
    notes.push("Processes started in the background still hold the output open; their further output is not shown. They are stopped when the conversation ends; to read their output, start them with run_in_background.");
  }
  const body = text.trimEnd();
  if (!body && notes.length === 0) return { content: "(Command completed with no output)" };
  const content = [body, ...notes].filter(Boolean).join("\n\n");
  return isError ? { content, isError } : { content };
}
