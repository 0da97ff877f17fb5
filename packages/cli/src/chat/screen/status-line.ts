// The settings' statusLine at a terminal: its command runs through the shell in the project, as a
// hook's does (CLAUDE_PROJECT_DIR and the settings' env set), reads the session's state as JSON
// (status-input.ts) and prints the line shown below the typed one.
// It runs when what it is told changes, at most every RUN_EVERY_MS and one run at a time: a newer
// update stops a run still going; with refreshInterval it also runs every so many seconds. Its
// first line of output, colours kept, is the status line; no output, or a failure, blanks it. Its
// stderr is ignored.
import { spawn, type ChildProcess } from "node:child_process";
import type { HarnessState } from "@harness/protocol";
import { statusLineInput, statusLineKey, type StatusLineContext } from "./status-input.ts";
import { harnessVersion } from "../../version.ts";

const RUN_EVERY_MS = 300;
const RUN_FOR_MS = 5_000;

export type StatusLine = { update(state: HarnessState | undefined): void; close(): void };

/** The status line the settings of the project in `cwd` give (read as a run there reads them), or
 * none; a statusLine that is wrong is said (naming the file and the key) and left out. */
export async function openStatusLine(o: {
  cwd: string;
  /** The session the chat is in (it may switch). */
  sessionId(): string;
  env: NodeJS.ProcessEnv;
  show(line: string | undefined): void;
  note(text: string, tone?: "info" | "error"): void;
}): Promise<StatusLine | undefined> {
  const [{ loadRunSettings, runPlace }, { statusLineOf }] = await Promise.all([import("@harness/agent/run-settings"), import("@harness/agent/status-line")]);
  const place = await runPlace({ cwd: o.cwd, ...(o.env.HOME && { home: o.env.HOME }) });
  const loaded = await loadRunSettings({ cwd: place.cwd }, place);
  const { statusLine, problems } = statusLineOf(loaded);
  for (const problem of problems) o.note(`✗ ${problem}`, "error");
  if (!statusLine) return undefined;
  return startStatusLine({
    ...statusLine,
    cwd: place.projectRoot,
    get sessionId() {
      return o.sessionId();
    },
    version: harnessVersion(),
    // As a hook's: the settings' env and CLAUDE_PROJECT_DIR, by which a project names its own script.
    env: { ...o.env, ...loaded.settings.env, CLAUDE_PROJECT_DIR: place.projectRoot },
    ...(loaded.settings.model && { model: loaded.settings.model }),
    ...(loaded.settings.outputStyle && { outputStyle: loaded.settings.outputStyle }),
    show: o.show,
    note: (text) => o.note(text),
  });
}

export function startStatusLine(
  o: StatusLineContext & { command: string; padding?: number; refreshInterval?: number; show(line: string | undefined): void; note(text: string): void; runForMs?: number },
): StatusLine {
  const runFor = o.runForMs ?? RUN_FOR_MS;
  let state: HarnessState | undefined;
  let lastKey: string | undefined;
  let lastRun = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: ChildProcess | undefined;
  let toldSlow = false;
  let closed = false;

  const stop = (child: ChildProcess | undefined) => {
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    try {
      // The shell's whole process group: a script's own children go with it.
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  };

  const run = () => {
    timer = undefined;
    if (closed) return;
    lastRun = Date.now();
    stop(running);
    let out = "";
    const child = spawn(o.command, { shell: true, cwd: o.cwd, env: o.env, stdio: ["pipe", "pipe", "ignore"], detached: true });
    running = child;
    const slow = setTimeout(() => {
      if (!toldSlow) o.note(`(the statusLine command ran longer than ${runFor / 1000} s and was stopped)`);
      toldSlow = true;
      stop(child);
    }, runFor);
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (out += text));
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(JSON.stringify(statusLineInput(state, o)));
    child.on("error", () => undefined);
    child.on("close", (code) => {
      clearTimeout(slow);
      // A run stopped for a newer one says nothing.
      if (running !== child) return;
      running = undefined;
      if (closed) return;
      const first = code === 0 ? shown(out.split(/\r?\n/)[0]) : "";
      o.show(first ? `${" ".repeat(o.padding ?? 0)}${first}` : undefined);
    });
  };

  // refreshInterval (seconds): a run besides those a change brings, unless one is due or going.
  const refresh = o.refreshInterval
    ? setInterval(() => {
        if (!closed && !timer && !running) timer = setTimeout(run, Math.max(0, lastRun + RUN_EVERY_MS - Date.now()));
      }, o.refreshInterval * 1000).unref()
    : undefined;

  return {
    update(next) {
      state = next;
      // Another session (the chat switched) is told as such, whatever its state.
      const key = `${o.sessionId} ${statusLineKey(next)}`;
      if (key === lastKey || closed) return;
      lastKey = key;
      if (timer) return;
      timer = setTimeout(run, Math.max(0, lastRun + RUN_EVERY_MS - Date.now()));
    },
    close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(refresh);
      stop(running);
    },
  };
}

/** `line` with colours (SGR sequences) kept and every other control character or escape sequence
 * dropped: one that moves the cursor would break the screen's layout. */
function shown(line: string): string {
  return line
    .replace(/\x1b\[[0-9;:]*m|\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b[@-_]|[\x00-\x1f\x7f]/g, (match) => (/^\x1b\[[0-9;:]*m$/.test(match) ? match : ""))
    .trimEnd();
}
