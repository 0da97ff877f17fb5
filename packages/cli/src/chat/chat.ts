// `harness chat`: a terminal client of a running server (`harness serve`), on the client SDK. It
// shows a session's conversation and follows it live, and sends what is typed as commands. The
// session is the server's: leaving the chat leaves a run under way going, and another chat (or
// any client) on the same session sees the same conversation.
//
// At a terminal, a line is acted on at once (while a run is under way it steers it). From a pipe,
// each line waits until what the one before started has settled, and the chat ends once the input
// has and the session is idle: exit status 1 when the input ended before what it started did (a
// call still waits for approval) or the last run it started failed or was cancelled.
import { homedir } from "node:os";
import { createInterface } from "node:readline";
import { Writable, type Readable } from "node:stream";
import { createHarnessClient, createSessionsApi, type ConfigureResult, type HarnessClient } from "@harness/client";
import type { HarnessCommand, HarnessState, RunnerRunOptions, SessionEndReason } from "@harness/protocol";
import { IdSchema } from "@harness/server/ids";
import { defaultUser } from "../default-user.ts";
import type { Command } from "../args.ts";
import { diagnoseConnectFailure, healthWatch } from "./diagnose.ts";
import { pickSession, type Picked } from "./pick.ts";
import { chatSessions } from "./resume.ts";
import { CONNECT_TIMEOUT_MS, forkSession, newSessionId, sessionIds } from "./sessions.ts";
import { CHAT_HELP, CHAT_KEYS, createApprovalNumbering, parseChatLine, runUnderWay, type ChatAction } from "./line.ts";
import { byFate, lineFates, type Entered } from "./input/entered.ts";
import { keepInputLine } from "./input/input-line.ts";
import { heldRows, startWorkingRow } from "./screen/working.ts";
import { historyFile } from "./input/history.ts";
import { openRecall } from "./input/recall.ts";
import { reverseSearch } from "./input/search.ts";
import { bracketedPaste } from "./input/paste.ts";
import { imagePasting } from "./input/image-paste.ts";
import { forgetOldImages } from "./input/images.ts";
import { projectPath } from "../project-dir.ts";
import { clearLine, continuedText, continues, watchKeys } from "./input/keys.ts";
import { runningBash } from "./background.ts";
import { claudeEditorMode, vimEditing } from "./vim/editor.ts";
import { promptEditing } from "./input/editor.ts";
import { claudeOnly } from "./claude-commands.ts";
import { currentTodos, formatTodos } from "../display/todo-list.ts";
import { chatCompletion } from "./input/complete.ts";
import { createChatView } from "./screen/view.ts";
import { terminalOptions, type Sink } from "../display/render.ts";
import { applySettings, describeSettings, settingFlags } from "./settings.ts";
import { readPromptFile } from "../prompt-file.ts";
import { openStatusLine } from "./screen/status-line.ts";
import { BYPASS_OFF, bypassTurnedOff, createChatModes, footerRows, type PlanSwitch } from "./modes.ts";
import { notifyAfterMs, readNotifChannel, sendingChannel, startNotifier } from "./notify.ts";
import { watchPresence } from "./focus.ts";

export type ChatIO = { stdout: Sink; stderr: Sink; env: NodeJS.ProcessEnv; stdin: Readable & { isTTY?: boolean } };
export type ChatCommand = Extract<Command, { kind: "chat" }>;

const DEFAULT_URL = "http://127.0.0.1:7700";
/** How long a local chat that is left waits for the run under way to end cancelled. */
const LOCAL_CANCEL_MS = 10_000;
/** Lines typed at a terminal this soon after one another were pasted together. */
const PASTE_MS = 30;
/** How soon a second Ctrl+C on an empty line at a terminal leaves. */
const LEAVE_AGAIN_MS = 2_000;

export { defaultUser };

/** Whether `sink` is a stream the terminal's line editor can draw on. */
function isWritable(sink: Sink): sink is Sink & Writable {
  return sink instanceof Writable && (sink as Sink).isTTY === true;
}

/** Resolves once what `command`, sent just now, started is over (a run it started has ended or waits
 * for approval, the call it answered is no longer waiting), or the server refused it: then a piped
 * chat goes on with its next line. Commands run in the order sent, so the others need no wait. */
function settled(client: HarnessClient, command: HarnessCommand): Promise<void> {
  // A steer or a new setting starts nothing to wait for (and may change nothing one would see).
  if (command.type === "steer" || command.type === "configure") return Promise.resolve();
  // Refused or cut off, the run is over for the chat too: the error shows as any other.
  if (command.type === "submit") return client.waitForRun(command.prompt, { untilApproval: true }).then(() => undefined, () => undefined);
  // A resumed session's run is seen to start before it is seen to end.
  let started = command.type !== "resume";
  const over = (state: HarnessState): boolean => {
    if (runUnderWay(state)) started = true;
    switch (command.type) {
      case "resume":
        return started && state.status !== "running";
      case "rewind":
        return !state.messages.some((m) => m.id === command.messageId);
      case "approve":
      case "deny":
        return !state.pendingApprovals?.some((p) => p.toolCallId === command.toolCallId) && state.status !== "running";
      default:
        return !runUnderWay(state);
    }
  };
  return new Promise((resolve) => {
    const offs: (() => void)[] = [];
    const done = () => {
      for (const off of offs) off();
      resolve();
    };
    offs.push(
      client.on("state", (state) => over(state) && done()),
      client.on("error", (error) => error.code !== "reconnect_failed" && done()),
      client.on("connection", (status) => status === "closed" && done()),
    );
  });
}

/** Whether the session's last reply was cut short by a cancel. */
function lastRunCancelled(state: HarnessState | undefined): boolean {
  const last = state?.messages.findLast((m) => m.role === "assistant");
  return last?.status === "cancelled";
}

/** `own`: what a chat of its own (local.ts) shares with its server: its plan mode (see
 * modes.ts), the options its runs take (the settings' flags, the plugins whose commands Tab
 * completes), and `left`, told how the chat was left (see `left` below) once it was. */
export async function chatCommand(given: ChatCommand, io: ChatIO, own?: { plan: PlanSwitch; run?: RunnerRunOptions; left?: (how: SessionEndReason) => void }): Promise<number> {
  let command = given;
  const fail = (message: string, status = 1) => {
    io.stderr.write(`harness: ${message}\n`);
    return status;
  };
  // Problems name where the value came from: the flag, or the environment variable.
  const envUrl = io.env.HARNESS_URL?.trim();
  const url = command.url ?? (envUrl || DEFAULT_URL);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Said below.
  }
  const urlSource = command.url !== undefined ? "--url" : "HARNESS_URL";
  if (!parsed || !["http:", "https:", "ws:", "wss:"].includes(parsed.protocol)) return fail(`${urlSource}: "${url}" is not an http(s) or ws(s) URL`, 2);
  // The WebSocket's own URL, copied whole (the client opens its own, under this one).
  if (["userId", "sessionId", "token", "since"].some((name) => parsed.searchParams.has(name))) {
    return fail(`${urlSource}: "${url}" is the server's address, without a query: the user, the session and the token go in --user, --session and HARNESS_TOKEN`, 2);
  }
  const userId = command.userId ?? defaultUser(io.env);
  const userSource = command.userId !== undefined ? "--user" : io.env.HARNESS_USER ? "HARNESS_USER" : "the login name";
  const checkedUser = IdSchema.safeParse(userId);
  if (!checkedUser.success) return fail(`${userSource}: "${userId}" ${checkedUser.error.issues[0].message}`, 2);
  const token = io.env.HARNESS_TOKEN?.trim() || undefined;
  // A name that no session could have is refused as such, before it is looked for.
  const givenSession = command.sessionId === undefined ? undefined : IdSchema.safeParse(command.sessionId);
  if (givenSession && !givenSession.success) return fail(`${command.existing ? "--resume" : "--session"}: "${command.sessionId}" ${givenSession.error.issues[0].message}`, 2);
  // --resume with no id: the user picks one of the sessions (at a terminal), and the chat goes on
  // as with --resume ID; it was in the list picked from, so the sessions are not listed again.
  let picked: Picked | undefined;
  if (command.pick) {
    try {
      picked = await pickSession({ url, userId, token, again: command.local ? "harness" : "harness chat" }, io, AbortSignal.timeout(CONNECT_TIMEOUT_MS));
    } catch (error) {
      const message = (error as Error).message;
      return fail(`--resume: cannot list the sessions of ${userId} at ${url}: ${/answered|server/.test(message) ? message : await diagnoseConnectFailure(url, token, message)}`);
    }
    if ("status" in picked) return picked.message ? fail(picked.message, picked.status) : picked.status;
    command = { ...command, sessionId: picked.sessionId, existing: true, pick: undefined };
  }
  // --continue goes on with the latest session; --resume, and --fork-session, need the session
  // they name to be one of them.
  const mustExist = command.sessionId === undefined || picked ? undefined : command.existing ? "--resume" : command.forkSession ? "--fork-session" : undefined;
  const listedFor = command.continue ? "--continue" : mustExist;
  let ids: string[] = [];
  if (listedFor) {
    try {
      ids = await sessionIds(url, userId, token, AbortSignal.timeout(CONNECT_TIMEOUT_MS));
    } catch (error) {
      const message = (error as Error).message;
      return fail(`${listedFor}: cannot list the sessions of ${userId} at ${url}: ${/^the server/.test(message) ? message : await diagnoseConnectFailure(url, token, message)}`);
    }
  }
  if (mustExist && !ids.includes(command.sessionId!)) {
    const latestIds = ids.slice(0, 5);
    return fail(`${mustExist}: there is no session "${command.sessionId}" here; ${latestIds.length ? `the latest: ${latestIds.join(", ")}` : "there is none yet"} (-c goes on with the last one)`);
  }
  const latest = command.continue ? ids[0] : undefined;
  const named = command.sessionId ?? latest;
  let sessionId = named ?? newSessionId();
  const checkedSession = IdSchema.safeParse(sessionId);
  if (!checkedSession.success) return fail(`--session: "${sessionId}" ${checkedSession.error.issues[0].message}`, 2);
  // --fork-session: the chat is on a copy of the session, made before anything is shown.
  let forkedFrom: string | undefined;
  let forkWarning: string | undefined;
  if (command.forkSession && named !== undefined) {
    try {
      const fork = await forkSession(url, userId, token, named, AbortSignal.timeout(CONNECT_TIMEOUT_MS));
      forkedFrom = named;
      sessionId = fork.sessionId;
      forkWarning = fork.warning;
    } catch (error) {
      return fail(`--fork-session: cannot copy session ${named}: ${(error as Error).message}`);
    }
  }

  // --system-prompt-file is read before anything is sent: a file that is not there stops the chat.
  let config = command.config;
  if (command.systemPromptFile !== undefined) {
    const read = readPromptFile("--system-prompt-file", command.systemPromptFile);
    if (!read.ok) return fail(read.message);
    config = { ...config, systemPrompt: read.text };
  }
  for (const note of command.notes ?? []) io.stderr.write(`harness: ${note}\n`);

  const interactive = Boolean(io.stdin.isTTY);
  const numbering = createApprovalNumbering();
  // At a terminal the chat reads keys itself (raw mode): the terminal's own line mode cuts a line
  // at 4,095 characters and knows no arrow keys or history. Ctrl+C then comes as a key, not SIGINT.
  const screen = [io.stderr, io.stdout].find(isWritable);
  const terminal = interactive && typeof (io.stdin as { setRawMode?: unknown }).setRawMode === "function" && screen !== undefined;
  // The line being typed is kept below what the chat prints, where the terminal can move the cursor.
  const inputLine = terminal && io.env.TERM !== "dumb" ? keepInputLine(screen) : undefined;
  const [stdout, stderr] = [io.stdout, io.stderr].map((sink) => (inputLine && sink.isTTY ? inputLine.around(sink) : sink));
  // A view shows one session: /resume starts a new one for the session it switches to.
  const held = inputLine && heldRows((lines) => inputLine.hold(lines));
  /** How the views show tool calls: `full` (--verbose) is turned on and off with Ctrl+O. */
  const shown = { ...terminalOptions(io), full: command.verbose === true, ...(command.local && command.cwd !== undefined && { cwd: command.cwd }) };
  const newView = () => createChatView(stdout, stderr, shown, numbering, held?.waiting);
  let view = newView();
  // Below the held lines, a row says the agent works while a run is running (chat/screen/working.ts).
  const working = held && startWorkingRow({ show: held.working, columns: () => (screen as { columns?: number }).columns, color: terminalOptions(io).color });
  const health = healthWatch();
  const client: HarnessClient = createHarnessClient({ url, userId, sessionId, ...(token && { token }), reconnect: { maxAttempts: 20 }, fetch: health.fetch });
  // What a state shows reaches a terminal that keeps the typed line in one write, the working row's
  // change with it: the row goes in the write that ends the reply.
  client.on("state", (state) => (inputLine ? inputLine.atOnce(() => (view.show(state), working?.update(state))) : view.show(state)));
  // While reconnecting, one line says so, and one more when it is back; a failed attempt is said
  // only when it is the last (the message then says it gave up).
  let lost = false;
  // While the flags' settings are being applied, a refusal is the chat's to say (and it stops).
  let applying = false;
  client.on("error", (error) => {
    if (applying) return;
    if (error.code === "reconnect_failed" && !/gave up/.test(error.message)) return;
    view.note(`✗ ${error.message}`, "error");
  });
  client.on("connection", (status) => {
    if (status === "reconnecting" && !lost) {
      lost = true;
      working?.lost();
      view.note("(connection lost; reconnecting…)");
    } else if (status === "open" && lost) {
      lost = false;
      view.note("(reconnected)");
    }
  });
  // A server that is stopped (or another program on its port) takes the connection and never
  // answers: the chat says so rather than wait for ever.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    client.close();
  }, CONNECT_TIMEOUT_MS);
  try {
    await client.connect();
  } catch (error) {
    if (timedOut) return fail(`could not connect to ${url}: no answer in ${CONNECT_TIMEOUT_MS / 1000} s; something there takes connections but does not answer (a stopped server, or another program on that port?)`);
    const message = (error as Error).message;
    const prefix = /^(could not connect to \S+): /.exec(message)?.[1];
    return fail(prefix ? `${prefix}: ${await diagnoseConnectFailure(url, token, message.slice(prefix.length + 2), health.asked())}` : message);
  } finally {
    clearTimeout(timer);
  }
  // The flags' settings (--model…) go in one configure, and the first prompt only once the session
  // shows them: a setting it refuses stops the chat before anything runs.
  let applied: HarnessState | undefined;
  // Settings that turn bypass permissions off: a chat started in it (by its flags, or a session
  // left in it) goes on in the default mode, as a run does.
  const bypassOff = await bypassTurnedOff(command.cwd ?? ".", io.env, own?.run);
  const leftBypass = bypassOff && (config?.permissionMode ?? client.state?.config?.permissionMode) === "fullAuto";
  if (leftBypass) config = { ...config, permissionMode: "default" };
  if (config && Object.keys(config).length > 0) {
    applying = true;
    try {
      applied = await applySettings(client, config, CONNECT_TIMEOUT_MS);
    } catch (error) {
      client.close();
      return fail(`${settingFlags(command)}: ${(error as Error).message}`);
    } finally {
      applying = false;
    }
  }
  // The settings' statusLine, below the typed line: only where that line is kept, on a terminal
  // that is stdout too (a chat whose replies go to a file or a pipe shows none).
  const footer = inputLine && footerRows((rows) => inputLine.status(rows));
  const statusLine = footer && io.stdout.isTTY ? await openStatusLine({ cwd: command.cwd ?? ".", sessionId: () => sessionId, env: io.env, show: footer.statusLine, note: (text, tone) => view.note(text, tone) }) : undefined;
  if (statusLine) client.on("state", (state) => statusLine.update(state));
  const modes = createChatModes({
    client,
    ...(own && { plan: own.plan }),
    bypass: config?.permissionMode === "fullAuto",
    bypassOff,
    send: (cmd) => send(cmd),
    note: (text, tone) => view.note(text, tone),
    show: (indicator) => footer?.mode(indicator),
  });
    // Raw mode is on before the chat says it is ready, so that nothing typed then meets line mode.
  // At a terminal, Up and Ctrl+R recall the prompts of earlier chats in the project too; a piped chat keeps none.
  const recall = terminal ? openRecall(historyFile(io.env.HOME || homedir(), io.env), projectPath(command.cwd ?? process.cwd()), (text) => view.note(`(${text})`)) : undefined;
  // At a terminal, Tab completes a command after "/" and a path of the project after "@".
  // A chat on a shared server completes @paths from its session's workspace there (the session may
  // change with /resume).
  const sessionsApi = createSessionsApi({ url, userId, ...(token && { token }) });
  const files = command.local ? undefined : (prefix: string, signal?: AbortSignal) => sessionsApi.listFiles(client.sessionId, prefix, { signal });
  const completion =
    recall &&
    chatCompletion(
      io.stdin,
      { local: command.local === true, files, cwd: command.cwd ?? process.cwd(), home: io.env.HOME || homedir(), pluginDirs: own?.run?.pluginDirs, ran: () => client.state?.available && { names: client.state.available.slashCommands, hints: client.state.available.argumentHints } },
      (text) => view.note(text),
      () => (screen as { columns?: number } | undefined)?.columns,
    );
  // After a command's name and a space, its argument-hint, dim, until something is typed after it.
  if (completion && inputLine) inputLine.hints(completion.hint, (text) => (terminalOptions(io).color ? `\x1b[2m${text}\x1b[22m` : text));
  const lines = recall ? createInterface({ input: io.stdin, output: inputLine?.output ?? screen, terminal: true, prompt: "", history: recall.history, historySize: recall.historySize, completer: completion?.completer }) : createInterface({ input: io.stdin, terminal: false });
  recall?.attach(lines);
  // A paste is one piece at the cursor, a long one a placeholder (chat/input/paste.ts); before the search
  // takes keys, so that it sees the paste's keys first.
  // A prompt recalled comes back as shown, placeholders and all, its pastes taken back with it.
  // Images (Ctrl+V, a pasted path of one) are kept in a local chat's project (chat/input/image-paste.ts).
  const images = imagePasting({ project: command.local ? command.cwd : undefined, where: url, home: io.env.HOME || homedir(), note: (text) => view.note(text) });
  // Those kept more than KEPT_IMAGE_DAYS go as the chat starts, meanwhile; it never fails over them.
  if (command.local && command.cwd !== undefined) void forgetOldImages(command.cwd);
  const paste = recall && io.env.TERM !== "dumb" ? bracketedPaste(lines, screen!, (index) => recall.pastesAt(index), images.imageOf) : undefined;
  // Ctrl+J and Ctrl+G (chat/input/editor.ts); the search, once it has begun, takes Ctrl+G first.
  const stopEditing =
    paste &&
    promptEditing(lines, io.stdin, io.env, {
      takeEarlier: () => {
        const typed = earlier.splice(0).map((entry) => entry.text);
        continuing = false;
        return typed;
      },
      note: (text, tone) => view.note(text, tone),
      goesOn: (line) => goesOn(line),
      busy: () => (runUnderWay(client.state) || starting ? "a run is under way: Ctrl+G opens the editor once it ends" : undefined),
      pasting: () => paste.pasting(),
      type: (text) => paste.type(text),
      shortcuts: () => earlier.length === 0 && !continuing && (stderr.write(CHAT_KEYS), true),
      aside: () => presence?.aside() ?? (() => undefined),
    });
  // A paste's keys (a Ctrl+R among them) are text, not the search's.
  const search = recall && reverseSearch(lines, () => paste?.pasting() ?? false);
  // /vim's mode of the prompt takes the keys first (Ctrl+R is its redo in normal mode), but those of
  // a paste or a search under way.
  const vim = recall && footer ? vimEditing(lines, { busy: () => (paste?.pasting() ?? false) || (search?.searching() ?? false), show: (mode) => footer.vim(mode && (mode === "insert" ? "-- INSERT --" : "-- NORMAL --")) }) : undefined;
  if (vim) {
    // Claude Code's /vim setting holds here too.
    const set = claudeEditorMode(io.env.HOME || homedir(), io.env);
    if (set.problem) view.note(`(${set.problem})`);
    if (set.vim) vim.toggle();
  }
  // At a terminal that shows the replies, the user is told when the session needs them and they
  // seem away (notify.ts); the keys are watched for that after the others' wrappers, to see
  // the terminal's focus reports first.
  const notifyChoice = terminal && io.stdout.isTTY ? readNotifChannel(io.env.HOME || homedir(), io.env) : undefined;
  const notifyAfter = notifyAfterMs(io.env);
  const channel = notifyChoice && sendingChannel(notifyChoice.channel, io.env);
  const presence = channel ? watchPresence(lines, io.stdout, true) : undefined;
  const notifier = channel && presence && startNotifier({ channel, afterMs: notifyAfter.ms, env: io.env, write: (bytes) => io.stdout.write(bytes), quietMs: presence.quietMs, focused: presence.focused });
  if (notifier) {
    if (client.state) notifier.update(client.state);
    client.on("state", (state) => notifier.update(state));
  }
  // (onKeyInterrupt is defined below, before any key can be read.)
  if (terminal) lines.on("SIGINT", () => onKeyInterrupt());
  const where = command.local ? `in ${command.cwd}` : `at ${url}`;
  if (command.continue && latest === undefined) view.note(`(no session to continue: a new one)`);
  // A local chat is what `harness` alone opens: its short flags, as claude's, come back to it.
  const comeBack = command.local
    ? ` (to come back: harness --resume ${sessionId}, or harness -c; harness -p -c "<prompt>" goes on with it in print mode)`
    : ` (to come back: harness chat --session ${sessionId}, or harness chat --continue)`;
  if (forkedFrom) view.note(`session ${sessionId} of ${userId} ${where}: a copy of session ${forkedFrom}, which stays as it was${comeBack}`);
  else view.note(`session ${sessionId} of ${userId} ${where}${named ? "" : comeBack}`);
  if (forkWarning) view.note(`(${forkWarning})`);
  if (applied) view.note(`(settings of session ${sessionId}: ${describeSettings(applied.config ?? {}, command.systemPromptFile)})`);
  if (leftBypass) view.note(`(${BYPASS_OFF}: the chat goes on in default mode)`);
  if (notifyChoice?.problem) view.note(`✗ ${notifyChoice.problem}`, "error");
  if (channel && notifyAfter.problem) view.note(`✗ ${notifyAfter.problem}`, "error");
  if (interactive) view.note(`type a prompt; "/help" lists the commands${paste ? ', "?" the keys' : ""}; Esc or Ctrl+C cancels a run; \\ or Alt+Enter before Enter starts a new line; Ctrl+D leaves`);
  statusLine?.update(client.state);
  modes.refresh();

  let leaving = false;
  let finish!: (status: number) => void;
  const finished = new Promise<number>((resolve) => (finish = (status) => ((leaving = true), resolve(status))));
  /** How the chat was left, which the session's SessionEnd hooks are told when it ends: as in Claude
   * Code, "prompt_input_exit" when the user left at the prompt (Ctrl+D, /exit, Ctrl+C twice), else
   * "other" (a signal, the server gone, a piped chat's input over). */
  let left: SessionEndReason = "other";
  const leaveAtPrompt = (status: number) => {
    if (!leaving && interactive) left = "prompt_input_exit";
    finish(status);
  };
  let cancelling = false;
  /** The chat started or answered a run: how the last run ended is then its outcome. */
  let acted = false;
  /** /resume is moving the client to another session: a connection that fails meanwhile is its to handle. */
  let switching = false;
  /** The chat said already what becomes of the run under way as it ends. */
  let toldRunFate = false;
  /** A prompt was sent whose run the state does not show yet: Ctrl+C then cancels it too. */
  let starting = false;
  client.on("state", (state) => (runUnderWay(state) || state.status === "error") && (starting = false));
  client.on("error", () => (starting = false));
  /** What `line` asks for. A prompt sent whose run the state does not show yet counts as a run
   * under way: the server has it first, and a line after it steers it (a second prompt is refused). */
  const parse = (line: string, agent?: readonly string[]): ChatAction => {
    const state = starting && client.state && !runUnderWay(client.state) ? { ...client.state, status: "running" as const } : client.state;
    return parseChatLine(line, state, state && numbering.update(state), agent);
  };
  // A line entered while a run is under way steers it, and the chat shows it its own way (on a
  // marked line): the typed copy is taken off. Anything else stays as typed: a prompt, a /command,
  // an answer to an approval, a line refused (which the user may want to read again).
  const steers = (line: string): boolean => {
    const action = parse(line);
    return action.kind === "send" && action.command.type === "steer";
  };
  // A line that goes on to the next (see chat/input/keys.ts), and the lines after it up to the prompt's
  // last, stay as typed: the prompt is acted on as a whole.
  let continuing = false;
  /** Whether `line` goes on: a `\` typed at its end, not one a placeholder's text ends in. */
  const goesOn = (line: string) => (paste ? paste.goesOn(line) : continues(line));
  /** The lines of the prompt being typed before the line being typed, each without its `\`. */
  const earlier: Entered[] = [];
  const fates =
    inputLine &&
    lineFates(lines, (line) => {
      const within = continuing;
      continuing = goesOn(line);
      if (within || continuing) return false;
      return line.trim() ? steers(line) : runUnderWay(client.state);
    });
  if (fates) inputLine?.attach(lines, (line) => fates.keepOnEnter(paste ? paste.expand(line) : line));
  /** `takenOff`: what became of the line's typed copy at its Enter (see chat/input/entered.ts). */
  const send = (cmd: HarnessCommand, takenOff?: boolean): boolean => {
    try {
      // A line shows once: as typed, when its copy stayed. Else, where the typed line is kept, a
      // steer is held below the reply until the state shows what the session made of it (a steer
      // of the run, or the prompt of a new one: the chat's view of the run may be late). Without
      // that (TERM=dumb), a steer is marked at once while a run is under way as far as the chat
      // knows, and else shows as the prompt the session makes of it.
      const underWay = runUnderWay(client.state) || starting;
      const steer = cmd.type === "steer" ? cmd.message : undefined;
      const marked = steer !== undefined && terminal && takenOff !== false && (inputLine !== undefined || underWay);
      // Sent first: a command the client refuses (too large) was never typed into the conversation.
      client.send(cmd);
      if (cmd.type === "cancel") notifier?.cancelledHere();
      if (cmd.type === "submit") view.typed(cmd.prompt);
      if (steer !== undefined && (takenOff === false || (marked && !inputLine))) view.typed(steer);
      if (marked) view.steered(steer, underWay);
      if (["submit", "resume", "approve", "deny"].includes(cmd.type)) acted = true;
      if ((cmd.type === "submit" || cmd.type === "resume" || cmd.type === "steer") && !runUnderWay(client.state)) starting = true;
      return true;
    } catch (error) {
      view.note(`✗ ${(error as Error).message}`, "error");
      return false;
    }
  };
  const sessions = chatSessions({
    api: sessionsApi,
    userId,
    where,
    current: () => sessionId,
    note: (text, tone) => view.note(text, tone),
    async switchTo(id) {
      const was = { sessionId, view, acted };
      view = newView();
      sessionId = id;
      acted = false;
      switching = true;
      notifier?.reset();
      try {
        // As the first connection, a switch the server takes but never answers is given up on.
        let timer: NodeJS.Timeout | undefined;
        const silent = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer in ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
        });
        await Promise.race([client.switchSession(id), silent]).finally(() => clearTimeout(timer));
      } catch (error) {
        // Back to the session the chat was in, shown as it was: only what changed meanwhile shows.
        ({ sessionId, view, acted } = was);
        await client.switchSession(sessionId).catch(() => finish(1));
        throw error;
      } finally {
        switching = false;
      }
    },
  });
  /** Acts on one line; resolves once a piped chat may go on. */
  const act = async ({ text, takenOff }: Entered): Promise<void> => {
    // Lines read after the chat was left (Ctrl+C, /quit) are not sent.
    if (leaving) return;
    // A line taken off as a steer goes as one, whatever the session did since: the session takes a
    // steer that finds no run under way as a prompt. One kept as typed steers a run under way or
    // starting (a paste's earlier part, taken off, may have just started one).
    const mine = takenOff ? undefined : modes.line(text);
    if (mine) return void (!interactive && mine.sent && (await settled(client, mine.sent)));
    // One of Claude Code's commands the chat lacks is answered by it, unless the agent has its own.
    const agent = !takenOff && claudeOnly(text.trim().split(/\s+/, 1)[0]) ? await completion?.commands().catch(() => []) : undefined;
    const action: ChatAction = takenOff ? { kind: "send", command: { type: "steer", message: text.trim() } } : parse(text, agent);
    if (action.kind === "quit") return leaveAtPrompt(0);
    if (action.kind === "help") return void stderr.write(CHAT_HELP);
    if (action.kind === "vim") {
      if (!vim) return view.note("✗ vim mode takes a chat at a terminal", "error");
      // Claude Code keeps editorMode in ~/.claude.json, its own state, which the chat does not write.
      if (vim.toggle()) return view.note("(vim mode on, for this chat (Claude Code's editorMode in ~/.claude.json is left as it is): Esc goes to normal mode, i back to insert mode; /vim again turns it off)");
      return view.note("(vim mode off: the line editor's Emacs keys)");
    }
    if (action.kind === "info") return view.note(action.text);
    if (action.kind === "error") return view.note(`✗ ${action.message}`, "error");
    if (action.kind === "session") return sessions.act(action.verb, action.arg);
    if (action.kind !== "send") return;
    if (action.command.type === "configure") {
      // Nothing in the conversation shows a new setting: say it took. A piped chat waits for the
      // answer (the server may refuse the model, after reading the settings), and says it only then.
      const { permissionMode, model } = action.command.config;
      const note = permissionMode ? `(permission mode ${permissionMode} from the next model call on)` : `(model ${model} from the next model call on)`;
      if (interactive) return void (send(action.command) && view.note(note));
      let answer: Promise<ConfigureResult>;
      try {
        answer = client.configure(action.command.config);
      } catch (error) {
        return view.note(`✗ ${(error as Error).message}`, "error");
      }
      if ((await answer).ok) view.note(note);
      return;
    }
    if (!send(action.command, takenOff)) return;
    // A piped chat waits for what the line started.
    const over = interactive ? undefined : settled(client, action.command);
    if (action.said) view.note(action.said);
    await over;
  };
  const onInterrupt = () => {
    if ((runUnderWay(client.state) || starting) && !cancelling) return cancelRun();
    finish(130);
  };
  /** `byEscape`: Esc, which never leaves, asked for it; the note then says nothing of leaving. */
  const cancelRun = (byEscape = false) => {
    cancelling = true;
    view.note(byEscape ? "cancelling the run" : `cancelling the run (Ctrl+C again to leave${interactive ? "" : " at once"})`);
    send({ type: "cancel" });
    // At a terminal the chat goes on; a piped chat stops there, as `harness run` does.
    void client.waitFor((state) => !runUnderWay(state)).then(() => (interactive ? (cancelling = false) : finish(130)), () => undefined);
  };
  /** The prompt being typed, all its lines, is thrown away. */
  const clearInput = () => {
    earlier.length = 0;
    continuing = false;
    clearLine(lines);
    paste?.forget();
  };
  /** When Ctrl+C last found nothing to cancel or clear. */
  let idleInterruptAt = -Infinity;
  // At a terminal, as in Claude Code: with no run to cancel, Ctrl+C clears the prompt being typed,
  // and leaves when pressed again on an empty one soon after.
  const onKeyInterrupt = () => {
    if (runUnderWay(client.state) || starting || cancelling) return onInterrupt();
    if (lines.line || earlier.length > 0 || continuing) return clearInput();
    if (Date.now() - idleInterruptAt < LEAVE_AGAIN_MS) return leaveAtPrompt(130);
    idleInterruptAt = Date.now();
    view.note("(Ctrl+C again to leave, or Ctrl+D)");
  };
  const stopKeys = terminal
    ? watchKeys(io.stdin, lines, {
        escape() {
          if (search?.tookLastKey() || vim?.tookLastKey()) return true;
          if (!runUnderWay(client.state) && !starting) return false;
          if (!cancelling) cancelRun(true);
          return true;
        },
        doubleEscape() {
          if (search?.tookLastKey() || vim?.tookLastKey()) return;
          // The prompt being typed is cleared; with none, the prompts to rewind to are listed.
          if (lines.line || earlier.length > 0 || continuing) return clearInput();
          void act({ text: "/rewind" });
        },
        shiftTab: () => modes.cycle(),
        ctrlT() {
          const todos = currentTodos(client.state?.messages ?? []);
          if (!todos) return view.note("(no todo list yet: the agent makes one with TodoWrite)");
          const done = todos.filter((todo) => todo.status === "completed").length;
          // A note is one dim piece of text: the items' marks say their state, without styles of their own.
          const plain = (text: string) => text;
          const items = formatTodos(todos, { width: Math.max(20, ((screen as { columns?: number } | undefined)?.columns ?? 80) - 2), maxItems: Infinity, bold: plain, dim: plain, strike: plain });
          view.note([`Todos (${done} of ${todos.length} done)`, ...items.map((item) => `  ${item}`)].join("\n"));
        },
        ctrlB() {
          if (search?.tookLastKey() || vim?.tookLastKey() || !runningBash(client.state)) return;
          send({ type: "background" });
          view.note("(moving the running command to the background: /tasks lists it)");
        },
        ctrlO() {
          shown.full = !shown.full;
          view.note(shown.full ? "(verbose output on: tool calls are shown whole; Ctrl+O again for excerpts)" : "(verbose output off: tool calls are shown as excerpts)");
        },
        // Not into a Ctrl+R search's line, which is not the prompt's.
        ctrlV: () => paste && !search?.searching() && void images.fromClipboard((mention) => paste.attach(mention)),
        pasting: () => paste?.pasting() ?? false,
      })
    : undefined;
  const leave = (status: number) => () => finish(status);
  const onTerm = leave(143);
  const onHup = leave(129);
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onTerm);
  process.on("SIGHUP", onHup);
  client.on("connection", (status) => {
    if (status === "closed" && !switching) finish(1);
  });

  // Taken before the first prompt's run: lines (and the input's end) that arrive during it wait
  // in the iterator instead of being missed.
  const input = lines[Symbol.asyncIterator]();
  // A terminal in line mode hands a pasted block over line by line, faster than anyone types: the
  // lines that follow one within PASTE_MS are taken with it.
  let ahead: Promise<IteratorResult<string>> | undefined;
  const nextLines = async (): Promise<Entered[] | undefined> => {
    const first = await (ahead ?? input.next());
    ahead = undefined;
    if (first.done) return undefined;
    const taken: Entered[] = [{ text: first.value, takenOff: fates?.next() }];
    while (interactive) {
      const next = input.next();
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), PASTE_MS)));
      const line = await Promise.race([next, quiet]);
      clearTimeout(timer);
      if (!line || line.done) {
        ahead = next;
        break;
      }
      taken.push({ text: line.value, takenOff: fates?.next() });
    }
    return taken;
  };
  const reading = (async () => {
    if (command.prompt) await act({ text: command.prompt });
    for (let taken = await nextLines(); taken; taken = await nextLines()) {
      if (terminal) {
        // A line that goes on waits for the prompt's last, and then goes with it as one prompt.
        const last = taken.at(-1)!;
        if (goesOn(last.text)) {
          earlier.push(...taken.slice(0, -1), { ...last, text: continuedText(last.text) });
          continue;
        }
        if (earlier.length > 0) {
          const all = [...earlier.splice(0), ...taken];
          const takenOff = all.find((entry) => entry.takenOff !== undefined)?.takenOff;
          taken = [{ text: all.map((entry) => entry.text).join("\n"), ...(takenOff !== undefined && { takenOff }) }];
        }
      }
      // A pasted prompt of several lines is one prompt; pasted lines of the chat's own commands
      // are acted on one by one.
      const lead = taken.find((entry) => entry.text.trim());
      const first = parseChatLine(lead?.text ?? "", client.state, client.state && numbering.update(client.state));
      const prompt = lead?.takenOff || (first.kind === "send" && (first.command.type === "submit" || first.command.type === "steer"));
      const entered = prompt && taken.length > 1 ? byFate(taken) : taken;
      for (const entry of entered) {
        recall?.entered(entry.text, client.state, paste?.forHistory(entry.text));
        await act(entry);
      }
    }
    // Input over: a piped chat waits for the session to settle and says how its last run ended.
    if (interactive) return leaveAtPrompt(0);
    const state = await client.waitFor((s) => s.status !== "running").catch(() => undefined);
    if (state?.status === "awaiting-approval") {
      toldRunFate = true;
      // A local chat's server, and so its runs, end with it: no other client can answer the call.
      view.note(
        command.local
          ? "input ended while a call waits for approval: the run is cancelled, as a local chat's runs end with it"
          : `input ended while a call waits for approval; the session keeps it: answer it with harness chat --session ${sessionId}`,
      );
      return finish(1);
    }
    finish(state?.status === "error" || (acted && lastRunCancelled(state)) ? 1 : 0);
  })();
  reading.catch((error: unknown) => {
    view.note(`✗ ${(error as Error).message}`, "error");
    finish(1);
  });

  const status = await finished;
  process.off("SIGINT", onInterrupt);
  process.off("SIGTERM", onTerm);
  process.off("SIGHUP", onHup);
  statusLine?.close();
  working?.close();
  notifier?.close();
  presence?.stop();
  stopKeys?.();
  completion?.stop();
  vim?.stop();
  search?.stop();
  stopEditing?.();
  paste?.stop();
  lines.close();
  // The chat closes the client only below: a closed one lost its server.
  if (runUnderWay(client.state) && client.connection !== "closed") {
    if (command.local) {
      // The chat's own server ends with it: the run is cancelled, so that the conversation says so.
      if (!toldRunFate) view.note("cancelling the run under way: a local chat's runs end with it");
      try {
        client.send({ type: "cancel" });
        await client.waitFor((state) => !runUnderWay(state), LOCAL_CANCEL_MS);
      } catch {
        // Whatever is still running stops with the server.
      }
    } else if (!toldRunFate) view.note(`the run goes on in session ${sessionId}`);
  }
  client.close({ left });
  own?.left?.(left);
  return status;
}
