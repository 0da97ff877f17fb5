// The events of one run, encoded once as SSE frames and kept (up to a limit) so that a listener can
// join at any time: replay what it missed after an event id, then follow live. The frames are kept
// as bytes (text-queue.ts): a run's thousands of them would otherwise be copied by every
// young-generation collection they outlive.
import { createTextQueue, type RunnerEventPayload } from "@harness/protocol";
import { encodeEvent } from "../http/sse.ts";

export type EventLogLimits = {
  /** At most this many events are kept; the oldest go first. */
  maxEvents: number;
  /** At most this many bytes (UTF-8) of frames are kept, but always the last one. */
  maxBytes: number;
};

export const DEFAULT_EVENT_LOG_LIMITS: EventLogLimits = { maxEvents: 500_000, maxBytes: 64 * 1024 * 1024 };

export type EventListener = {
  /** One SSE frame. */
  frame(frame: string): void;
  /** Takes the shorter form of the last event when there is one (see EventLog.append). */
  added?: boolean;
  /** The run ended: no frame follows. */
  end(): void;
};

export type Replay = { ok: true; frames: string[] } | { ok: false; oldestKept: number };

export type EventLog = {
  /** Stamps the next seq on the event, keeps its frame and hands it to every listener. `added`:
   * the same last event with only the transcript's added messages, for the listeners that take it
   * (the query's own stream); the whole event is then encoded only when someone reads it. */
  append(event: RunnerEventPayload, added?: RunnerEventPayload): number;
  /** No event follows; listeners are told and dropped. */
  end(): void;
  readonly ended: boolean;
  /** Someone follows the log (a stream is open on it). */
  readonly followed: boolean;
  readonly lastSeq: number;
  /** The frames of the events after `afterSeq`; not ok when some of them are no longer kept. */
  replay(afterSeq: number): Replay;
  /** Follows the events appended from now on. Ended log: `end` is called at once. */
  subscribe(listener: EventListener): () => void;
};

export function createEventLog(limits: EventLogLimits = DEFAULT_EVENT_LOG_LIMITS): EventLog {
  // frames hold the events firstSeq()..lastSeq, but for a last event appended with an `added` form,
  // which `last` holds, encoded whole when first needed: a long conversation's transcript is
  // megabytes of JSON that its own stream does not carry.
  const frames = createTextQueue();
  let last: { seq: number; whole: () => string } | undefined;
  let lastSeq = 0;
  const firstSeq = () => lastSeq - (last ? 1 : 0) - frames.length + 1;
  let ended = false;
  const listeners = new Set<EventListener>();

  function dropOldest(): void {
    while (frames.length > limits.maxEvents || (frames.bytes > limits.maxBytes && frames.length > 1)) {
      frames.drop();
    }
  }

  return {
    append(event, added) {
      if (ended) throw new Error("the run's event log has ended");
      if (last) throw new Error("the run's last event is in its log already");
      // Encoded before anything changes: an event that cannot be encoded leaves the log as it was.
      const seq = lastSeq + 1;
      if (added) {
        const short = encodeEvent(seq, added);
        let whole: string | undefined;
        const kept = { seq, whole: () => (whole ??= encodeEvent(seq, event)) };
        if (![...listeners].every((listener) => listener.added)) kept.whole();
        lastSeq = seq;
        last = kept;
        for (const listener of listeners) listener.frame(listener.added ? short : kept.whole());
        return seq;
      }
      const frame = encodeEvent(seq, event);
      lastSeq = seq;
      frames.push(frame);
      if (frames.bytes > limits.maxBytes || frames.length > limits.maxEvents) dropOldest();
      for (const listener of listeners) listener.frame(frame);
      return lastSeq;
    },
    end() {
      if (ended) return;
      ended = true;
      for (const listener of listeners) listener.end();
      listeners.clear();
    },
    get ended() {
      return ended;
    },
    get followed() {
      return listeners.size > 0;
    },
    get lastSeq() {
      return lastSeq;
    },
    replay(afterSeq) {
      const from = Math.max(afterSeq + 1, 1);
      const first = firstSeq();
      if (from < first && from <= lastSeq) return { ok: false, oldestKept: first };
      if (from > lastSeq) return { ok: true, frames: [] };
      const kept = frames.from(from - first);
      if (last) kept.push(last.whole());
      return { ok: true, frames: kept };
    },
    subscribe(listener) {
      if (ended) {
        listener.end();
        return () => {};
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
