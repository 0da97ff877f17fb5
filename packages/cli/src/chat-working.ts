// The row `harness chat` shows at a terminal while the agent works, as Claude Code does: a glyph
// that cycles, a verb, the seconds the run has gone on and how to stop it,
//   ✻ Thinking… (12s · esc to interrupt)
// It shows while the session's state says a run is running (not while a call waits for approval:
// the question is on the screen then), below the reply and above the typed line, and is gone the
// moment the run ends, is cancelled or asks. The state says not when a run started: a chat that
// joins one under way counts from then. Claude Code adds the output tokens so far; the state counts
// a run's tokens only once it is over, so the row says nothing of them.
import type { HarnessState } from "@harness/protocol";
import { cut } from "./terminal-text.ts";

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

/** The row at frame `frame`, `ms` into the run, cut to `width` columns less one (the cursor never
 * waits at its end to wrap); with `color`, its glyph and verb stand out and the rest is dim. */
export function workingRow(o: { frame: number; verb: string; ms: number; width?: number; color: boolean }): string {
  const head = `${GLYPHS[o.frame % GLYPHS.length]} ${o.verb}…`;
  const tail = ` (${elapsed(o.ms)} · esc to interrupt)`;
  const room = (o.width || Infinity) - 1;
  const plain = cut(head + tail, room);
  if (!o.color) return plain;
  const shownHead = plain.slice(0, head.length);
  return `\x1b[38;5;209m${shownHead}\x1b[0m\x1b[2m${plain.slice(shownHead.length)}\x1b[0m`;
}

export type WorkingRow = {
  /** The session's state as it now is: the row shows, goes on or goes. Nothing once closed. */
  update(state: HarnessState): void;
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
  /** The run under way (running or asking) as first seen: when, and its verb. */
  let run: { start: number; verb: string } | undefined;
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const draw = () => o.show(run && workingRow({ frame, verb: run.verb, ms: now() - run.start, width: o.columns(), color: o.color }));
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  return {
    update(state) {
      if (closed) return;
      const underWay = state.status === "running" || state.status === "awaiting-approval";
      if (!underWay) run = undefined;
      else run ??= { start: now(), verb: pick(VERBS) };
      if (state.status !== "running") {
        if (timer) o.show(undefined);
        return stop();
      }
      if (timer) return;
      frame = 0;
      draw();
      timer = setInterval(() => {
        frame++;
        draw();
      }, FRAME_MS);
      timer.unref();
    },
    close() {
      closed = true;
      if (timer) o.show(undefined);
      stop();
    },
  };
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
