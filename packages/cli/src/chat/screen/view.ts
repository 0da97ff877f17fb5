// What `harness chat` prints of a session. It follows the state the server owns: each show() prints
// what is new since the last one (text added to a reply, tool calls that started or ended,
// approvals asked for, how the run ended), whether the state came as a delta or as a whole snapshot
// after a reconnect, so nothing is printed twice. Replies go to stdout; everything else to stderr,
// as `harness run` does.
import { bashModeCommand, noticesAdded, STREAM_CUT_NOTE, type HarnessMessage, type HarnessState, type Notice } from "@harness/protocol";
import { createApprovalNumbering } from "../line.ts";
import { callBody, callLabel, proposedChange } from "../../display/call-display.ts";
import { planChoices } from "../plan.ts";
import { createThinkingShown } from "./thinking.ts";
import { markdownFor } from "../../markdown/stream.ts";
import { cut, describeToolCall, ERROR_LINE_CHARS, excerptOutput, oneLine, printable, terminalStyle, type RendererOptions, type Sink } from "../../display/render.ts";

export type ChatView = {
  show(state: HarnessState): void;
  /** A line of the chat's own (a notice, an error), kept apart from a reply being streamed. */
  note(line: string, tone?: "info" | "error"): void;
  /** A prompt or steer typed here: its user message is not printed again. */
  typed(text: string): void;
  /** A steer sent from this terminal, `underWay`: while a run was under way as far as the chat knew.
   * With `waiting` (a terminal that holds lines below the reply), it is held there until the state
   * shows what the session made of it: a steer of the run (marked as one, where the model read it)
   * or the prompt of a new run (shown as one); a steer the run ended without is dropped (the
   * session says so). Else it is marked at once, on a line of its own once a reply being streamed
   * is at the end of a line. */
  steered(text: string, underWay: boolean): void;
};

/** `printed`: of a bash-mode call still running, its output printed so far (null: it was cut in the
 * middle since, and is printed whole when it ends). */
type Seen = { chars: number; calls: Map<string, "started" | "ended">; ended: boolean; printed: Map<string, string | null> };

const ENDED_CALL = new Set(["complete", "error", "denied"]);
/** A prompt that is the agent's /clear (arguments and all). */
const CLEAR = /^\s*\/clear(\s|$)/;
const CLEARED = "── context cleared: the model starts afresh; earlier messages stay in the session's history ──";

/** `numbering`: the numbers the calls waiting for approval are shown with, which the chat's
 * /approve and /deny then take. `waiting`: told the lines of the steers sent and not yet shown
 * in the conversation, each time they change, for a terminal that holds them below the reply. */
export function createChatView(
  stdout: Sink,
  stderr: Sink & { columns?: number },
  /** `cwd`: the directory the session's runs work in, when it is this machine's (a local chat):
   * the paths of tool calls under it are shown relative to it. */
  opts: Omit<RendererOptions, "cwd"> & { cwd?: string },
  numbering = createApprovalNumbering(),
  waiting?: (lines: readonly string[]) => void,
): ChatView {
  const style = terminalStyle(stdout, stderr, opts);
  const { bold, dim, red, yellow, width, shared } = style;
  /** How wide a tool's line may be: a terminal's width as it is now (it may be resized), less the
   * indent, so that a narrow one does not wrap each line over several rows. */
  const fit = (indent: number): number => (opts.full ? Infinity : stderr.isTTY && stderr.columns && opts.width === undefined ? Math.max(20, Math.min(width, stderr.columns - indent)) : width);
  // A terminal in colour shows the replies' markdown rendered; piped or plain, they are as written.
  const markdown = markdownFor(stdout, opts.color);
  const seen = new Map<string, Seen>();
  const approvalsShown = new Set<string>();
  const own: string[] = [];
  let lastStatus: HarnessState["status"] | undefined;
  let lastError: string | undefined;
  let atLineStart = true;
  let replying: string | undefined;
  /** A line of ours was the last thing on the shared terminal: a reply going on after it (its text
   * starts a new paragraph) needs one blank line, not two. */
  let afterLine = false;
  /** Steers waiting for the streamed reply's line to end, as their lines (without `waiting`). */
  const steers: string[] = [];
  /** Steers sent whose user message the state does not show yet, held below the reply. */
  const sent: { text: string; shown: string }[] = [];
  /** The latest output lines of the calls running, held below the reply (with `waiting`), as last
   * handed over and as gathered by the show() under way. */
  let liveHeld: readonly string[] = [];
  let live: string[] = [];
  /** Hands `waiting` the lines to hold: the steers, then the running calls' latest output. */
  const hold = () => waiting?.([...sent.map((steer) => steer.shown), ...liveHeld]);
  /** A run was under way in the state shown before this one. */
  let wasUnderWay = false;
  const steerLine = (text: string) => dim(`↳ steer: ${oneLine(text, 200)}`);
  /** A prompt as typed: a bash-mode one as its `!` line. */
  const promptLine = (text: string) => {
    const command = bashModeCommand(text);
    return bold(command === undefined ? `› ${printable(text)}` : `! ${printable(command)}`);
  };
  /** The call whose header was the last one printed, until its output is. */
  let lastHeader: string | undefined;
  /** The notices as last seen (undefined before the first state: those are of runs before the
   * chat, and may no longer hold). */
  let seenNotices: readonly Notice[] | undefined;
  /** The messages as last shown (a copy, taken when their number changes): a rewind removes some. */
  let shownMessages: readonly HarnessMessage[] = [];

  // Read at each stretch: Ctrl+O turns the chat's verbose output on and off while it runs.
  const thinking = createThinkingShown({
    get full() {
      return opts.full === true;
    },
    dim,
    line,
  });

  /** A line on stderr. When both streams are one terminal they share its cursor: a reply being
   * streamed is broken off first (a piped reply is left whole). */
  function line(text: string): void {
    if (shared && !atLineStart) stderr.write("\n");
    showSteers();
    stderr.write(`${text}\n`);
    if (shared) atLineStart = afterLine = true;
  }

  /** Text of reply `id` on stdout; another reply than the last starts on a line of its own. */
  function reply(text: string, id?: string): void {
    if (id !== undefined && id !== replying) endReply();
    if (id !== undefined && id !== replying && !atLineStart) stdout.write("\n");
    if (id !== undefined) replying = id;
    print(markdown ? markdown.push(text) : text);
  }

  /** What the markdown of the reply being streamed holds back, printed: its text is over. */
  function endReply(): void {
    if (markdown) print(markdown.end());
  }

  function print(text: string): void {
    if (!text) return;
    if (afterLine) text = text.replace(/^\n{2,}/, "\n");
    afterLine = false;
    const end = steers.length > 0 ? text.lastIndexOf("\n") + 1 : 0;
    if (end > 0) {
      // The reply's line is over: the steers go between its lines.
      stdout.write(text.slice(0, end));
      showSteers();
    }
    if (end < text.length) stdout.write(text.slice(end));
    atLineStart = text.endsWith("\n");
  }

  /** The steers waiting for the streamed reply's line to end, each on a line of its own. */
  function showSteers(): void {
    for (const steer of steers.splice(0)) stderr.write(`${steer}\n`);
  }

  /** The message's text up to `end` not shown yet. */
  function showText(message: HarnessMessage, mine: Seen, end: number): void {
    if (end <= mine.chars) return;
    // The model may repeat what a file or a web page holds: its escape sequences would act on the
    // terminal (clear it, hide lines, set the clipboard), so they are dropped as in tool output.
    reply(printable(message.content.slice(mine.chars, end)), message.id);
    mine.chars = end;
  }

  /** Shows the user message `content` if it is of steers sent here (a runner may deliver several
   * as one message): marked as steers if a run was under way before it came, as a prompt if not. */
  function ownSteer(content: string): boolean {
    const of = sent.filter((steer) => content.includes(steer.text));
    if (of.length === 0) return false;
    for (const steer of of) sent.splice(sent.indexOf(steer), 1);
    hold();
    if (wasUnderWay) for (const steer of of) line(steerLine(steer.text));
    else line(promptLine(content));
    return true;
  }

  /** `asked`: the user message `message` answers. The output of a bash-mode command (the user's
   * own) is shown whole, as far as the Bash tool kept it; a tool call of the model's by an excerpt. */
  function showMessage(message: HarnessMessage, asked?: HarnessMessage): void {
    const whole = asked?.role === "user" && bashModeCommand(asked.content) !== undefined;
    let mine = seen.get(message.id);
    if (!mine) {
      mine = { chars: 0, calls: new Map(), ended: false, printed: new Map() };
      seen.set(message.id, mine);
      if (message.role === "user") {
        mine.chars = message.content.length;
        if (ownSteer(message.content)) return;
        const ownIndex = own.indexOf(message.content.trim());
        if (ownIndex !== -1) own.splice(ownIndex, 1);
        // The session keeps the messages from before a /clear, which no longer reach the model:
        // the line says so where it happened, typed here or shown again on joining.
        if (CLEAR.test(message.content)) line(dim(CLEARED));
        else if (ownIndex === -1) line(promptLine(message.content));
        return;
      }
    }
    if (message.role !== "assistant") return;
    // A message cut short (a rewind) is followed from its new end.
    if (message.content.length < mine.chars) mine.chars = message.content.length;
    thinking.show(message, message.content.length > mine.chars || (message.toolCalls ?? []).some((call) => !mine.calls.has(call.id)));
    for (const call of message.toolCalls ?? []) {
      const state = mine.calls.get(call.id);
      // A message shown whole (joined late, or after a reconnect) puts each call where it was made.
      if (!state && call.textOffset !== undefined) showText(message, mine, Math.min(call.textOffset, message.content.length));
      const ended = ENDED_CALL.has(call.status);
      // The header waits for the input, which names what the call does.
      const label = callLabel(call.name, call.input, (name) => describeToolCall(name, call.input, opts.cwd, opts.full ? Infinity : Math.min(80, fit(call.name.length + 4))));
      const header = `${bold("●")} ${label}`;
      if (!state && (call.input || call.status !== "running")) {
        endReply();
        line(header);
        mine.calls.set(call.id, "started");
        lastHeader = call.id;
      }
      if (mine.calls.get(call.id) === "started" && !ended && call.output) {
        if (whole) printLive(call.id, call.output, mine, header);
        else if (waiting) live.push(...liveLines(call.output));
      }
      if (mine.calls.get(call.id) === "started" && ended) {
        mine.calls.set(call.id, "ended");
        const printed = mine.printed.get(call.id);
        mine.printed.delete(call.id);
        const failed = call.status !== "complete";
        let output = call.status === "denied" && !call.output ? "denied" : (call.output ?? "");
        // A bash-mode command's lines printed as they came are not printed again.
        const goesOn = printed && output.startsWith(printed) && lastHeader === call.id;
        if (goesOn) output = output.slice(printed.length);
        // Calls made together end in any order: an output says whose it is when another call's
        // header came after its own.
        if (lastHeader !== call.id) line(header);
        lastHeader = undefined;
        if (goesOn && !output.trim()) continue;
        const excerpt = callBody({ toolName: call.name, input: call.input, output, failed }, { width: fit(5), full: opts.full === true, ...(opts.cwd !== undefined && { cwd: opts.cwd }) }, style, () =>
          excerptOutput(output, whole ? Infinity : style.maxLines, whole ? Infinity : failed ? Math.max(fit(5), ERROR_LINE_CHARS) : fit(5)).map((text, i) => (failed && i === 0 && !goesOn ? red(text) : dim(text))),
        );
        const mark = (i: number) => (i > 0 || goesOn ? " " : failed ? red("✗") : dim("⎿"));
        line(excerpt.map((text, i) => `  ${mark(i)}  ${text}`).join("\n"));
      }
    }
    showText(message, mine, message.content.length);
    if (message.status !== "running" && message.id === replying) endReply();
    if (!mine.ended && message.status === "cancelled") {
      mine.ended = true;
      line(yellow("(cancelled)"));
    }
  }

  /** Prints the whole lines of a running bash-mode command's `output` not printed yet. Output
   * whose middle was cut since (it no longer begins with what was printed) waits for the result. */
  function printLive(id: string, output: string, mine: Seen, header: string): void {
    const printed = mine.printed.get(id);
    if (printed === null) return;
    if (printed !== undefined && !output.startsWith(printed)) {
      mine.printed.set(id, null);
      return;
    }
    // Lines are printed up to the cut: the rest comes with the result.
    const cutAt = output.search(STREAM_CUT_NOTE);
    if (cutAt >= 0) {
      output = output.slice(0, cutAt + 1);
      mine.printed.set(id, null);
    }
    const end = output.lastIndexOf("\n") + 1;
    const from = printed?.length ?? 0;
    if (end <= from) return;
    if (lastHeader !== id) line(header);
    lastHeader = id;
    const lines = output.slice(from, end - 1).split("\n");
    line(lines.map((text, i) => `  ${i === 0 && from === 0 ? dim("⎿") : " "}  ${dim(printable(text.replace(/\r$/, "")))}`).join("\n"));
    if (cutAt < 0) mine.printed.set(id, output.slice(0, end));
  }

  /** The latest lines of a running call's output, as held below the reply. */
  function liveLines(output: string): string[] {
    const all = output.replace(/\s+$/, "").split(/\r?\n/);
    const { maxLines } = style;
    const shown = all.slice(-maxLines).map((text) => dim(cut(printable(text), fit(5))));
    if (all.length > maxLines) shown.unshift(dim(`… +${all.length - maxLines} lines`));
    return shown.map((text, i) => `  ${i === 0 ? dim("⎿") : " "}  ${text}`);
  }

  return {
    show(state) {
      live = [];
      const { messages } = state;
      if (messages.length !== shownMessages.length) {
        // What was printed stays on the screen: say where the conversation goes on from.
        const removed = shownMessages[messages.length];
        if (messages.length < shownMessages.length && removed && messages.every((m, i) => m.id === shownMessages[i].id)) {
          const from = removed.role === "user" ? ` before › ${oneLine(removed.content, 70)}` : "";
          line(yellow(`(rewound: the conversation goes on from${from || " an earlier point"})`));
        }
        shownMessages = messages.slice();
      }
      const notices = state.notices ?? [];
      for (const notice of seenNotices ? noticesAdded(seenNotices, notices) : []) {
        const text = printable(notice.message);
        line(notice.level === "error" ? red(`✗ ${text}`) : notice.level === "warning" ? yellow(`! ${text}`) : dim(`· ${text}`));
      }
      seenNotices = notices.slice();
      wasUnderWay = lastStatus === "running" || lastStatus === "awaiting-approval";
      messages.forEach((message, i) => showMessage(message, messages[i - 1]));
      if (waiting && (live.length !== liveHeld.length || live.some((text, i) => text !== liveHeld[i]))) {
        liveHeld = live;
        hold();
      }
      // A run that ends without the steers held delivered them to no one: the session sends them
      // next as a prompt (shown as any prompt is) or says they were not delivered.
      if (wasUnderWay && state.status !== "running" && state.status !== "awaiting-approval" && sent.length > 0) {
        sent.length = 0;
        hold();
      }
      const pending = state.pendingApprovals ?? [];
      const numbers = numbering.update(state);
      for (const approval of pending) {
        if (approvalsShown.has(approval.toolCallId)) continue;
        approvalsShown.add(approval.toolCallId);
        const which = numbers.size > 1 ? ` ${numbers.get(approval.toolCallId)}` : "";
        const plan = approval.toolName === "ExitPlanMode" ? planOf(state, approval.toolCallId) : undefined;
        if (plan !== undefined) {
          // A plan is read whole before it is approved.
          line(yellow("? The plan needs your approval:"));
          line(plan.split("\n").map((text) => `  ${printable(text)}`).join("\n"));
          line(dim(planChoices(which).map((text) => `  ${text}`).join("\n")));
          continue;
        }
        // y and n answer the oldest call waiting: with several, each also says its own commands.
        const answer = which ? `/approve${which} to allow, /deny${which} [reason] to deny (y / n answer the oldest first)` : "y to allow, n [reason] to deny";
        line(yellow(`? ${printable(approval.toolName)} needs approval: ${printable(approval.description)} — ${answer}`));
        if (approval.reason) line(dim(`  ${printable(approval.reason)}`));
        const call = state.messages.flatMap((message) => message.toolCalls ?? []).find((c) => c.id === approval.toolCallId);
        const change = call ? proposedChange({ toolName: call.name, ...(call.input && { input: call.input }) }, { width: fit(4), full: opts.full === true, ...(opts.cwd !== undefined && { cwd: opts.cwd }) }, style) : [];
        if (change.length > 0) line(change.map((row) => `    ${row}`).join("\n"));
      }
      if (state.status !== lastStatus) {
        if (state.status === "idle" || state.status === "error") {
          endReply();
          if (!atLineStart) print("\n");
        }
        if (state.status === "error" && state.error && state.error !== lastError) line(red(`✗ ${printable(state.error)}`));
        lastStatus = state.status;
        lastError = state.error;
      }
    },
    note(text, tone = "info") {
      // Notes carry the server's messages, which may quote what a client sent.
      line(tone === "error" ? red(printable(text)) : dim(printable(text)));
    },
    typed(text) {
      own.push(text.trim());
    },
    steered(text, underWay) {
      if (waiting) {
        sent.push({ text: text.trim(), shown: underWay ? steerLine(text) : promptLine(text) });
        hold();
        return;
      }
      const shown = steerLine(text);
      if (shared && !atLineStart) steers.push(shown);
      else line(shown);
    },
  };
}

/** The plan an ExitPlanMode call presents, from its input. */
function planOf(state: HarnessState, toolCallId: string): string | undefined {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const call = state.messages[i].toolCalls?.find((c) => c.id === toolCallId);
    if (call) return typeof call.input?.plan === "string" ? call.input.plan.replace(/\r\n?/g, "\n").trim() : undefined;
  }
  return undefined;
}
