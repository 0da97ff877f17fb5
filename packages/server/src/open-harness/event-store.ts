// The event feed's events that are not an execution's start or end (sessions made and deleted,
// skills installed and removed, hooks that ran, runs that failed): told as they happen, and read
// back by the feed's list and by a stream resumed after Last-Event-ID, across restarts: each is
// written to the session database as it is recorded (sqlite/feed-events.ts; a store of its own, in
// memory, when none is given). Kept 7 days, and at most the newest 10,000 a user: reads never see
// more; the rows past that are deleted as records go on (every minute those past their time, and a
// user's surplus every TRIM_EVERY of their records).
//
// An event's id is `<ms>-note-<number>`: the feed orders by time first, and within a millisecond
// these come before an execution's start or end. The number counts up in the order events are
// recorded, on from the highest stored; the time never goes back for a user (nor before their latest
// stored), and is past the last execution event told to them (sawExecutionEvent), so that the
// feed's order is the order its streams were told them in, before a restart and after.
//
// A database that cannot be written (another process holds its lock, the disk is full) is logged,
// once until it can be again: the events are still told, kept in memory and read from there, and
// written every RETRY_MS until it takes them (lost if it still refuses them once the server has
// stopped and waited for it a while).
import { createFeedRows, KEEP_FEED_MS, MAX_FEED_PER_USER, memoryFeedDatabase, type FeedQuery, type FeedRow, type FeedRows } from "../sqlite/feed-events.ts";
import { comesAfter, type EventType, type FeedEvent, type placeOf } from "./event-feed.ts";

/** The types this store holds: every one of the feed's but an execution's start and end. */
export type NoteType = Exclude<EventType, "execution.started" | "execution.completed">;
export const isNoteType = (type: EventType): type is NoteType => type !== "execution.started" && type !== "execution.completed";

/** Which of a user's events a read takes: of `type` only, after `since` (ms) only, after the event
 * at the place `after` only (a stream's Last-Event-ID). */
export type EventQuery = { type?: NoteType; since?: number; after?: NonNullable<ReturnType<typeof placeOf>> };

/** How often the events past their time are deleted, and the users whose place in time is behind
 * the clock let go. */
const SWEEP_MS = 60_000;
/** A user's events past the most kept are deleted every this many of their records. */
const TRIM_EVERY = 100;
/** How often events the database did not take are written again. */
const RETRY_MS = 1000;
/** How often a server that stops tries again to write the events the database did not take. */
const STOP_RETRY_MS = 250;
/** The most events kept in memory while the database takes none (the oldest go). */
const MAX_UNSAVED = 10_000;

/** `log`: told of the database's failures (level "error") and of its taking the events again ("info"). */
export type EventStoreOptions = { rows?: FeedRows; log?: (line: string, level: "error" | "info") => void; now?: () => number; keepMs?: number; maxPerUser?: number };

const idOf = (row: FeedRow) => `${row.at}-note-${String(row.number).padStart(12, "0")}`;
const newestFirst = (a: FeedRow, b: FeedRow) => b.at - a.at || b.number - a.number;

function eventOf(row: FeedRow): FeedEvent {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.data);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) data = parsed as Record<string, unknown>;
  } catch {
    // A damaged row reads with no data rather than taking the user's whole feed down.
  }
  return { id: idOf(row), type: row.type as NoteType, data, timestamp: new Date(row.at).toISOString() };
}

export function createEventStore(options: EventStoreOptions = {}) {
  const now = options.now ?? Date.now;
  const keepMs = options.keepMs ?? KEEP_FEED_MS;
  const max = options.maxPerUser ?? MAX_FEED_PER_USER;
  const log = options.log ?? (() => {});
  const rows = options.rows ?? createFeedRows(memoryFeedDatabase());
  /** Per user: the earliest time their next event may have. Those behind the clock are let go
   * (read again from the stored events when needed). */
  const floors = new Map<string, number>();
  /** Per user: their records since their surplus was last deleted. */
  const sinceTrim = new Map<string, number>();
  const listeners = new Set<(userId: string, event: FeedEvent) => void>();
  let unsaved: FeedRow[] = [];
  let failing = false;
  let retry: NodeJS.Timeout | undefined;
  let counter = rows.lastNumber();
  let swept = -Infinity;
  let closed = false;

  const problem = (error: unknown) => (error as Error).message;

  function floorOf(userId: string): number {
    const floor = floors.get(userId);
    if (floor !== undefined) return floor;
    try {
      return rows.lastAt(userId);
    } catch (error) {
      log(`events: cannot read the latest event of ${userId}: ${problem(error)}`, "error");
      return 0;
    }
  }

  function sweep(clock: number): void {
    if (clock - swept < SWEEP_MS) return;
    swept = clock;
    for (const [userId, floor] of floors) if (floor <= clock) floors.delete(userId);
    sinceTrim.clear();
    try {
      rows.prune(clock - keepMs);
    } catch (error) {
      log(`events: cannot delete the events past their time: ${problem(error)}`, "error");
    }
  }

  function trim(userId: string): void {
    const count = sinceTrim.get(userId);
    if (count !== undefined && count < TRIM_EVERY) {
      sinceTrim.set(userId, count + 1);
      return;
    }
    sinceTrim.set(userId, 1);
    try {
      rows.trim(userId, max);
    } catch (error) {
      log(`events: cannot delete the events of ${userId} past the newest ${max}: ${problem(error)}`, "error");
    }
  }

  /** Writes the events not yet written; true when none is left. */
  function save(): boolean {
    if (unsaved.length === 0) return true;
    try {
      rows.add(unsaved);
    } catch (error) {
      if (!failing) log(`events: cannot write the event feed's events (${problem(error)}): they are kept in memory until the database takes them, lost if the server stops first`, "error");
      failing = true;
      if (unsaved.length > MAX_UNSAVED) unsaved = unsaved.slice(-MAX_UNSAVED);
      if (!closed)
        retry ??= setTimeout(() => {
          retry = undefined;
          save();
        }, RETRY_MS).unref();
      return false;
    }
    if (failing) log(`events: the event feed's events are written again (${unsaved.length} waited)`, "info");
    failing = false;
    unsaved = [];
    return true;
  }

  /** What the rows of a read are asked for; `after` as the time from which `comesAfter` decides. */
  function wanted(query: EventQuery): FeedQuery {
    const since = query.after ? Math.max(query.after.at - 1, query.since ?? -Infinity) : query.since;
    return { keptFrom: now() - keepMs, max, ...(query.type !== undefined && { type: query.type }), ...(since !== undefined && { since }) };
  }

  /** The events waiting to be written that `asked` takes. */
  const waiting = (userId: string, asked: FeedQuery) =>
    unsaved.filter((r) => r.userId === userId && r.at >= asked.keptFrom && (asked.type ?? r.type) === r.type && (asked.since === undefined || r.at > asked.since));

  /** The user's events `query` takes, stored or waiting to be, the newest first, at most `limit`. */
  function rowsOf(userId: string, query: EventQuery, limit: number): FeedRow[] {
    const asked = wanted(query);
    let stored: FeedRow[] = [];
    try {
      stored = rows.list(userId, asked, limit);
    } catch (error) {
      log(`events: cannot read the events of ${userId}: ${problem(error)}`, "error");
    }
    const more = waiting(userId, asked);
    return more.length === 0 ? stored : [...stored, ...more].sort(newestFirst).slice(0, limit);
  }

  return {
    /** Keeps an event of `userId`'s, writes it, and tells the listeners, at once; returns it. */
    record(userId: string, type: NoteType, data: Record<string, unknown>): FeedEvent {
      const clock = now();
      sweep(clock);
      const at = Math.max(clock, floorOf(userId));
      floors.set(userId, at);
      const row: FeedRow = { number: ++counter, userId, at, type, data: JSON.stringify(data) };
      unsaved.push(row);
      // While the database refuses, the retry writes them: not every record waits on its lock.
      if (retry === undefined && save()) trim(userId);
      const event = eventOf(row);
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
      floors.set(userId, Math.max(floorOf(userId), atMs + 1));
    },
    /** The user's events `query` takes, oldest first: the newest `limit` of them (all kept, without). */
    list(userId: string, query: EventQuery = {}, limit = max): FeedEvent[] {
      const events = rowsOf(userId, query, limit).reverse().map(eventOf);
      const { after } = query;
      return after ? events.filter((event) => comesAfter(event.id, after)) : events;
    },
    /** How many of the user's events `query` takes (`after` aside). */
    count(userId: string, query: Omit<EventQuery, "after"> = {}): number {
      const asked = wanted(query);
      let stored = 0;
      try {
        stored = rows.count(userId, asked);
      } catch (error) {
        log(`events: cannot count the events of ${userId}: ${problem(error)}`, "error");
      }
      return stored + waiting(userId, asked).length;
    },
    /** Calls `listener` with every event recorded from now on; returns what stops it. */
    subscribe(listener: (userId: string, event: FeedEvent) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** The users whose place in time the store holds in memory. */
    users: () => floors.size,
    /** For a server that stops: writes what waits to be, trying again every STOP_RETRY_MS for at
     * most `waitMs` while the database refuses (another process's lock is often brief, and the
     * sessions' last writes wait for it as long); true when nothing is lost. */
    async close(waitMs = 0): Promise<boolean> {
      closed = true;
      clearTimeout(retry);
      retry = undefined;
      const until = performance.now() + waitMs;
      let saved = save();
      while (!saved && performance.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(STOP_RETRY_MS, Math.max(0, until - performance.now()))));
        saved = save();
      }
      if (!saved) log(`events: ${unsaved.length} of the event feed's events were never written`, "error");
      return saved;
    },
  };
}

export type EventStore = ReturnType<typeof createEventStore>;
