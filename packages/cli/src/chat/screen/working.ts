// The row `harness chat` shows at a terminal while the agent works, as Claude Code does: a glyph
// that cycles, a verb, the time the run has gone on, the output tokens so far and how to stop it,
//   ✻ Thinking… (12s · ↓ 1.2k tokens · esc to interrupt)
// and, while a Bash call runs, that Ctrl+B moves it to the background (`· ctrl+b to run in background`).
// While the model thinks (its reply's thinking grew last), the verb is "Thinking" (thinking.ts).
// It shows while the session's state says a run is running (not while a call waits for approval:
// the question is on the screen then), below the reply and above the typed line, and is gone the
// moment the run ends, is cancelled or asks. The time counts from when the state says the run
// started (runStartedAt), so a chat that joins a run under way (a second terminal, a reconnect)
// counts from its real start; a chat that saw the run begin, or a session that does not say,
// counts from when the chat first saw it (another machine's clock is not trusted over its own).
// A run whose runStartedAt is not the one first seen is another run (the chat, reconnecting, missed
// the end of the one before).
// The tokens are the real output tokens of the run's calls that have ended (the state's usage grows
// with each), plus an estimate of the call streaming now, as Claude Code makes it: a token for four
// characters of what the run has put in the state since the main agent's last call ended (its
// replies' text and thinking, and its tool calls' input, a sub-agent's calls included; a
// sub-agent's text reaches the state only as its Task call's result), from the run's own messages.
// A row that joins a run under way estimates what came before it joined.
import type { HarnessState } from "@harness/protocol";
import { thinkingNow } from "./thinking.ts";
import { runningBash } from "../background.ts";
import { cut } from "../../display/terminal-text.ts";

/** The glyphs, there and back, one a frame. */
const GLYPHS = ["·", "✢", "✳", "✶", "✻", "✽", "✽", "✻", "✶", "✳", "✢", "·"];
/** One of these per run, picked at random. */
export const VERBS = ["Thinking", "Working", "Pondering", "Considering", "Mulling", "Reasoning", "Musing", "Brewing", "Crafting", "Computing"];
/** How often the row is drawn again: a few times a second, each time one write. */
export const FRAME_MS = 250;

/** The seconds a run has gone on, as Claude Code says them: 12s, 2m 5s, 1h 0m 3s. */
export function elapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  return h > 0 ? `${h}h ${m}m ${s}s` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
/** A count of tokens as Claude Code says it: 950, 1.2k, 12.3k, 1.2m. */
export function tokenCount(n: number): string {
  return compact.format(n).toLowerCase();
}

/** The row at frame `frame`, `ms` into the run with `tokens` out so far (none said when none), cut
 * to `width` columns less one (the cursor never waits at its end to wrap); with `color`, its glyph
 * and verb stand out and the rest is dim. */
export function workingRow(o: { frame: number; verb: string; ms: number; tokens?: number; background?: boolean; width?: number; color: boolean }): string {
  const head = `${GLYPHS[o.frame % GLYPHS.length]} ${o.verb}…`;
  const tokens = o.tokens ? ` · ↓ ${tokenCount(o.tokens)} tokens` : "";
  const tail = ` (${elapsed(o.ms)}${tokens} · esc to interrupt${o.background ? " · ctrl+b to run in background" : ""})`;
  const room = (o.width || Infinity) - 1;
  const plain = cut(head + tail, room);
  if (!o.color) return plain;
  const shownHead = plain.slice(0, head.length);
  return `\x1b[38;5;209m${shownHead}\x1b[0m\x1b[2m${plain.slice(shownHead.length)}\x1b[0m`;
}

export type WorkingRow = {
  /** The session's state as it now is: the row shows, goes on or goes. Nothing once closed. */
  update(state: HarnessState): void;
  /** The connection to the session was lost: the states that follow may have missed a run's start
   * or end, so a run found under way is counted as one joined (from the start the state says). */
  lost(): void;
  /** The row goes for good. */
  close(): void;
};

/** `show`: the row to draw (undefined: none), each time it changes. `now` and `pick` are the
 * clock and the verb's dice (tests give their own). */
export function startWorkingRow(o: {
  show(row: string | undefined): void;
  columns(): number | undefined;
  color: boolean;
  now?: () => number;
  pick?: (verbs: readonly string[]) => string;
}): WorkingRow {
  const now = o.now ?? (() => Date.now());
  const pick = o.pick ?? ((verbs) => verbs[Math.floor(Math.random() * verbs.length)]);
  /** The run under way (running or asking): when it started, its verb, the index of its first
   * message (the prompt, or for a chat that joined it the latest user message), its tokens, and
   * the state's runStartedAt when first seen (another there: another run, its end unseen). */
  let run: { start: number; verb: string; from: number; tokens: number; counts: RunCounts; said: unknown } | undefined;
  /** Whether a state this row was given had no run under way: a run after it began in its sight. */
  let sawIdle = false;
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const thinks = thinkingNow();
  /** The model thinks now: the row says so, whatever its verb. */
  let thinking = false;
  /** A Bash call runs: Ctrl+B would move it to the background. */
  let bash = false;
  const draw = () => o.show(run && workingRow({ frame, verb: thinking ? "Thinking" : run.verb, ms: now() - run.start, tokens: run.tokens, background: bash, width: o.columns(), color: o.color }));
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  return {
    update(state) {
      if (closed) return;
      const underWay = state.status === "running" || state.status === "awaiting-approval";
      if (!underWay || (run && typeof state.runStartedAt === "number" && state.runStartedAt !== run.said)) run = undefined;
      if (underWay && !run) {
        const from = runFrom(state);
        run = { start: startOf(state, now(), sawIdle), verb: pick(VERBS), from, tokens: 0, counts: startCounts(state, runTokens(state, from)), said: state.runStartedAt };
      }
      sawIdle ||= !underWay;
      const thinkingWas = thinking;
      const bashWas = bash;
      thinking = thinks(state);
      bash = runningBash(state);
      if (run) run.tokens = countTokens(run.counts, state, runTokens(state, run.from));
      if (state.status !== "running") {
        if (timer) o.show(undefined);
        return stop();
      }
      if (timer) {
        if (thinking !== thinkingWas || bash !== bashWas) draw();
        return;
      }
      frame = 0;
      draw();
      timer = setInterval(() => {
        frame++;
        draw();
      }, FRAME_MS);
      timer.unref();
    },
    lost() {
      sawIdle = false;
    },
    close() {
      closed = true;
      if (timer) o.show(undefined);
      stop();
    },
  };
}

/** When the run under way started, first seen `seen`: the state's word for it when this chat
 * joined the run under way, but never later than `seen` (clocks that differ put it ahead). */
function startOf(state: HarnessState, seen: number, sawBegin: boolean): number {
  const said = state.runStartedAt;
  return !sawBegin && typeof said === "number" && Number.isFinite(said) ? Math.min(said, seen) : seen;
}

/** What a row counts a run's tokens from: the estimate when it first saw the run (what came
 * before), the output tokens the state said then, the ones it says now, the estimate when a call of
 * the main agent last ended, and that call (the state's lastCall, as JSON). */
type RunCounts = { before: number; outAtStart: number; out: number; estimateAtCall: number; call: string | undefined };

function outputTokens(state: HarnessState): number {
  const out = state.usage?.outputTokens;
  return typeof out === "number" && Number.isFinite(out) ? out : 0;
}

function startCounts(state: HarnessState, estimate: number): RunCounts {
  const out = outputTokens(state);
  return { before: estimate, outAtStart: out, out, estimateAtCall: estimate, call: JSON.stringify(state.lastCall) };
}

/** The run's tokens now, `estimate` being what its messages make: see the file's head. */
function countTokens(counts: RunCounts, state: HarnessState, estimate: number): number {
  const out = outputTokens(state);
  const call = JSON.stringify(state.lastCall);
  // A call of the main agent ended: its real count takes the place of the estimate so far. A
  // sub-agent's or a hook's (lastCall unchanged) adds its count, and the main agent's call that
  // may be streaming meanwhile stays estimated.
  if (out !== counts.out && call !== counts.call) counts.estimateAtCall = estimate;
  counts.out = out;
  counts.call = call;
  return counts.before + Math.max(0, counts.out - counts.outAtStart) + Math.max(0, estimate - counts.estimateAtCall);
}

/** The index of the run under way's first message: its prompt, the last user message before the
 * reply it streams into (for a chat that joins after a steer, the steer's). */
function runFrom(state: HarnessState): number {
  const { messages } = state;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "user") return i;
  return 0;
}

/** The characters of a tool call's input, kept per input: a state's unchanged parts are the same
 * objects from one state to the next, so each input is measured once. */
const inputChars = new WeakMap<object, number>();

/** The output tokens of the run whose messages start at `from`, estimated as Claude Code does
 * while streaming: a token for four characters of its replies, their thinking and its tool calls'
 * input. Looks at the run's own messages only. */
export function runTokens(state: HarnessState, from: number): number {
  let chars = 0;
  for (let i = from; i < state.messages.length; i++) {
    const message = state.messages[i];
    if (message.role !== "assistant") continue;
    chars += message.content.length + (message.thinking?.length ?? 0);
    for (const call of message.toolCalls ?? []) {
      if (!call.input) continue;
      let size = inputChars.get(call.input);
      if (size === undefined) inputChars.set(call.input, (size = JSON.stringify(call.input).length));
      chars += size;
    }
  }
  return Math.round(chars / 4);
}

/** The lines held between the reply and the typed line, handed to `hold` as one list: the chat
 * view's (steers waiting, the running calls' latest output), then the working row. */
export function heldRows(hold: (lines: readonly string[]) => void): { waiting(lines: readonly string[]): void; working(row: string | undefined): void } {
  let waiting: readonly string[] = [];
  let working: string | undefined;
  const update = () => hold(working === undefined ? waiting : [...waiting, working]);
  return {
    waiting: (lines) => ((waiting = lines), update()),
    working: (row) => ((working = row), update()),
  };
}
