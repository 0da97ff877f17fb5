// The Open Harness event feed of a user: their executions' starts and ends, and the other events of
// the spec (sessions made and ended, skills installed and removed, hooks that ran, runs that failed),
// the events webhooks are told of. The executions' past is read from the executions kept (every one
// until an hour after it ended); the others' from the event store (event-store.ts); live events
// reach the streams subscribed to the user.
// An event's id begins with its time in milliseconds, then its kind, then what it is of: the feed's
// order is the ids' (time; one of the store's, then a start, then an end; the store's number or the
// execution), so a stream resumed from any id it sent, even one no longer kept, knows where to go on from.
import type { Execution } from "./executions.ts";
import type { ExecutionNotice } from "./webhooks.ts";

/** The types of the spec's HarnessEvent. */
export const EVENT_TYPES = ["execution.started", "execution.completed", "hook.triggered", "session.created", "session.ended", "skill.installed", "skill.uninstalled", "error"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as the spec's StoredEvent (the stream sends `{ type, ...data }`). */
export type FeedEvent = { id: string; type: EventType; data: Record<string, unknown>; timestamp: string };

const KINDS = { note: 0, started: 1, completed: 2 } as const;
type Kind = keyof typeof KINDS;
const ID = /^(\d{1,15})-(note|started|completed)-(.+)$/;

/** Where an event id places it in the feed's order; undefined for one the feed never gave. */
export function placeOf(id: string): { at: number; kind: Kind; of: string } | undefined {
  const match = ID.exec(id);
  // `of`: the execution, or the store's number (zero-padded, so that it compares as text).
  return match ? { at: Number(match[1]), kind: match[2] as Kind, of: match[3] } : undefined;
}

/** Whether the event `id` comes after the place `after` in the feed's order. */
export function comesAfter(id: string, after: NonNullable<ReturnType<typeof placeOf>>): boolean {
  const place = placeOf(id)!;
  if (place.at !== after.at) return place.at > after.at;
  if (place.kind !== after.kind) return KINDS[place.kind] > KINDS[after.kind];
  return place.of > after.of;
}

function eventOf(execution: Execution, kind: Kind): FeedEvent {
  const common = { execution_id: execution.id, session_id: execution.sessionId, started_at: execution.startedAt };
  if (kind === "started") return { id: `${Date.parse(execution.startedAt)}-started-${execution.id}`, type: "execution.started", data: common, timestamp: execution.startedAt };
  const completedAt = execution.completedAt ?? new Date().toISOString();
  return {
    id: `${Date.parse(completedAt)}-completed-${execution.id}`,
    type: "execution.completed",
    // No usage: a stored execution's is in its whole record, read only for the execution itself.
    data: { ...common, status: execution.watch.status, completed_at: completedAt },
    timestamp: completedAt,
  };
}

/** The feed's event for a notice (what webhooks are sent). */
export function noticeEvent(notice: ExecutionNotice): FeedEvent {
  return eventOf(notice.execution, notice.type === "started" ? "started" : "completed");
}

/** The events of `executions`, each one's start, and its end once it has ended, with `others`
 * (the event store's), oldest first. */
export function eventsOf(executions: readonly Execution[], others: readonly FeedEvent[] = []): FeedEvent[] {
  const events = executions.flatMap((execution) => (execution.completedAt === undefined ? [eventOf(execution, "started")] : [eventOf(execution, "started"), eventOf(execution, "completed")]));
  return [...events, ...others].sort((a, b) => (comesAfter(a.id, placeOf(b.id)!) ? 1 : a.id === b.id ? 0 : -1));
}

/** The live side: `publish` hands each notice's event to the listeners of its user, at once. */
export function createEventFeed() {
  const listeners = new Map<string, Set<(event: FeedEvent) => void>>();
  /** Tells the streams of `userId` the event. */
  function publishTo(userId: string, event: FeedEvent): void {
    const mine = listeners.get(userId);
    if (!mine?.size) return;
    for (const listener of mine) listener(event);
  }
  return {
    /** Tells the streams of the notice's user its event; returns the event. */
    publish(notice: ExecutionNotice): FeedEvent {
      const event = noticeEvent(notice);
      publishTo(notice.execution.userId, event);
      return event;
    },
    publishTo,
    /** The listeners subscribed now, every user's (each an open stream). */
    listeners(): number {
      let count = 0;
      for (const mine of listeners.values()) count += mine.size;
      return count;
    },
    /** Calls `listener` with each new event of `userId`'s; returns what stops it. */
    subscribe(userId: string, listener: (event: FeedEvent) => void): () => void {
      let mine = listeners.get(userId);
      if (!mine) listeners.set(userId, (mine = new Set()));
      mine.add(listener);
      return () => {
        mine.delete(listener);
        // Stopped again after the user's set was dropped: a later set is others' and stays.
        if (mine.size === 0 && listeners.get(userId) === mine) listeners.delete(userId);
      };
    },
  };
}

export type EventFeed = ReturnType<typeof createEventFeed>;
