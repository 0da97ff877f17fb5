// The event feed's events that are not an execution's start or end (sessions made and deleted,
// skills installed and removed, hooks that ran, runs that failed), kept in memory: they are told
// as they happen and read back for an hour, by the feed's list and by a stream resumed after
// Last-Event-ID, but not past the server's life (an execution's are, from the executions kept).
// Bounded as the executions are: an hour, and at most MAX_KEPT_PER_USER a user (the oldest go).
//
// An event's id is `<ms>-note-<number>`: the feed orders by time first, and within a millisecond
// these come before an execution's start or end. The number counts up in the order events are
// recorded; the time never goes back for a user, and is past the last execution event told to
// them (sawExecutionEvent), so that the feed's order is the order its streams were told them in.
import { KEEP_ENDED_MS, MAX_KEPT_PER_USER } from "../sqlite/executions.ts";
import type { EventType, FeedEvent } from "./event-feed.ts";

/** The types this store holds: every one of the feed's but an execution's start and end. */
export type NoteType = Exclude<EventType, "execution.started" | "execution.completed">;

type Kept = { events: FeedEvent[]; floor: number };

/** How often the users whose events have all expired are let go. */
const SWEEP_MS = 60_000;

export type EventStoreOptions = { now?: () => number; keepMs?: number; maxPerUser?: number };

export function createEventStore(options: EventStoreOptions = {}) {
  const now = options.now ?? Date.now;
  const keepMs = options.keepMs ?? KEEP_ENDED_MS;
  const max = options.maxPerUser ?? MAX_KEPT_PER_USER;
  const byUser = new Map<string, Kept>();
  const listeners = new Set<(userId: string, event: FeedEvent) => void>();
  let counter = 0;
  let swept = now();

  function keptOf(userId: string): Kept {
    let kept = byUser.get(userId);
    if (!kept) byUser.set(userId, (kept = { events: [], floor: 0 }));
    return kept;
  }

  /** Drops the events past their hour (they are oldest first). */
  function expire(kept: Kept, at: number): void {
    const first = kept.events.findIndex((event) => Date.parse(event.timestamp) >= at - keepMs);
    if (first !== 0) kept.events.splice(0, first === -1 ? kept.events.length : first);
  }

  function sweep(at: number): void {
    if (at - swept < SWEEP_MS) return;
    swept = at;
    for (const [userId, kept] of byUser) {
      expire(kept, at);
      // A user whose floor is still ahead of the clock keeps it (a clock that went back).
      if (kept.events.length === 0 && kept.floor <= at) byUser.delete(userId);
    }
  }

  return {
    /** Keeps an event of `userId`'s and tells the listeners, at once; returns it. */
    record(userId: string, type: NoteType, data: Record<string, unknown>): FeedEvent {
      const clock = now();
      sweep(clock);
      const kept = keptOf(userId);
      const at = Math.max(clock, kept.floor);
      kept.floor = at;
      counter++;
      const event: FeedEvent = { id: `${at}-note-${String(counter).padStart(12, "0")}`, type, data, timestamp: new Date(at).toISOString() };
      kept.events.push(event);
      expire(kept, clock);
      if (kept.events.length > max) kept.events.splice(0, kept.events.length - max);
      for (const listener of listeners) {
        try {
          listener(userId, event);
        } catch {
          // A listener's failure is not the event's: the others are still told.
        }
      }
      return event;
    },
    /** An execution's event at `atMs` was told to `userId`'s streams: events recorded from now on
     * come after it in the feed's order. */
    sawExecutionEvent(userId: string, atMs: number): void {
      sweep(now());
      const kept = keptOf(userId);
      kept.floor = Math.max(kept.floor, atMs + 1);
    },
    /** The user's events kept, oldest first. */
    list(userId: string): FeedEvent[] {
      const kept = byUser.get(userId);
      if (!kept) return [];
      expire(kept, now());
      return [...kept.events];
    },
    /** Calls `listener` with every event recorded from now on; returns what stops it. */
    subscribe(listener: (userId: string, event: FeedEvent) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** The users the store holds anything of (their events, or their place in time). */
    users: () => byUser.size,
  };
}

export type EventStore = ReturnType<typeof createEventStore>;
