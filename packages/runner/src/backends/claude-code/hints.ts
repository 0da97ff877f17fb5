// Claude Code's init message names a run's slash commands but not their argument hints (what the
// chat shows after a command's name and Tab); its supportedCommands() gives them. They are asked once
// per Claude Code session on this runner, after the run's init (so the run's start never waits on
// them), and told in a run.ready that says the same with the hints; the session's later runs here
// carry them in their first run.ready.
import type { AgentEvent } from "@harness/protocol";

type Hints = Record<string, string>;

/** Claude Code sessions whose hints are kept; the oldest gives way. */
const KEPT_SESSIONS = 64;
/** By Claude Code session id: the hints, or the question still under way. */
const known = new Map<string, Hints | Promise<Hints | undefined>>();

/** The hints of supportedCommands()'s answer, by command name: another program's answer, so what
 * is not a name with a non-empty hint is left out. */
export function hintsOf(commands: unknown): Hints {
  const hints: Hints = {};
  if (!Array.isArray(commands)) return hints;
  for (const command of commands) {
    const { name, argumentHint } = (command ?? {}) as { name?: unknown; argumentHint?: unknown };
    if (typeof name === "string" && typeof argumentHint === "string" && argumentHint.trim() !== "") hints[name] = argumentHint;
  }
  return hints;
}

/** Wraps a run's `emit` so that its main run.ready carries the hints of Claude Code session
 * `sessionOf()`, asked of `ask` when none are known. `end()`: the run is over, and a late answer
 * is kept for the next run rather than told. */
export function hintedReady(emit: (event: AgentEvent) => void, sessionOf: () => string | undefined, ask: () => Promise<unknown>): { emit: (event: AgentEvent) => void; end: () => void } {
  let last: Extract<AgentEvent, { type: "run.ready" }> | undefined;
  let ended = false;
  const withHints = (event: Extract<AgentEvent, { type: "run.ready" }>, hints: Hints): Extract<AgentEvent, { type: "run.ready" }> =>
    Object.keys(hints).length === 0 ? event : { ...event, available: { ...event.available, argumentHints: hints } };

  function asked(sessionId: string): Promise<Hints | undefined> {
    const question = ask().then(hintsOf, () => undefined);
    const entry = question.then((hints) => {
      // A failed question (the run ended first) is asked again by the session's next run.
      if (hints === undefined) known.delete(sessionId);
      else known.set(sessionId, hints);
      return hints;
    });
    if (known.size >= KEPT_SESSIONS) known.delete(known.keys().next().value!);
    known.set(sessionId, entry);
    return entry;
  }

  return {
    emit(event) {
      if (event.type !== "run.ready" || event.agentId !== undefined) return emit(event);
      const sessionId = sessionOf();
      const entry = sessionId === undefined ? undefined : (known.get(sessionId) ?? asked(sessionId));
      if (entry === undefined || entry instanceof Promise) {
        last = event;
        emit(event);
        void entry?.then((hints) => {
          if (ended || hints === undefined || last !== event || Object.keys(hints).length === 0) return;
          last = withHints(event, hints);
          emit(last);
        });
        return;
      }
      last = withHints(event, entry);
      emit(last);
    },
    end: () => {
      ended = true;
    },
  };
}
