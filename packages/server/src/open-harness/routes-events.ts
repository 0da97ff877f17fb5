// The event feed over the Open Harness API (hooks.listEvents, hooks.streamEvents): the user's own
// executions' starts and ends (event-feed.ts). The list reads the executions kept; the stream sends
// the events after Last-Event-ID (none without it), then each new one as it happens, until the
// client goes away or falls MAX_QUEUED_EVENTS behind.
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { check } from "../sessions/api.ts";
import { H, handle, harnessOf, queryOf, userOfRequest, type OpenHarness } from "./common.ts";
import { comesAfter, EVENT_TYPES, eventsOf, placeOf, type EventFeed, type FeedEvent } from "./event-feed.ts";
import { page, PaginationSchema } from "./shapes.ts";

const EventType = z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(", ")}` });
const ListQuery = PaginationSchema.extend({
  type: EventType.optional(),
  since: z.iso.datetime({ offset: true, error: "must be an ISO 8601 date and time" }).optional(),
}).passthrough();
const StreamQuery = z
  .object({
    events: z
      .string()
      .transform((text) => text.split(",").map((name) => name.trim()).filter((name) => name !== ""))
      .pipe(z.array(EventType).min(1, "must name at least one event type"))
      .optional(),
  })
  .passthrough();
const LastEventId = z.string().refine((id) => placeOf(id) !== undefined, "is no id this feed gave");

/** Events a stream holds while its client reads too slowly for them: past that, the stream ends
 * (its client resumes after the Last-Event-ID it got) rather than hold more. */
export const MAX_QUEUED_EVENTS = 1000;

/** A comment sent this often keeps a quiet stream open through proxies that cut idle connections. */
const KEEP_ALIVE_MS = 25_000;

export function mountEventRoutes(oh: OpenHarness, feed: EventFeed): void {
  const { app } = oh;
  app.get(
    `${H}/events`,
    handle((c) => {
      harnessOf(c);
      const query = queryOf(c, ListQuery);
      const since = query.since === undefined ? undefined : Date.parse(query.since);
      const all = eventsOf(oh.executions.list(userOfRequest(c)))
        .reverse()
        .filter((event) => (query.type ?? event.type) === event.type && (since === undefined || Date.parse(event.timestamp) > since));
      return c.json(page(all, query));
    }),
  );
  app.get(
    `${H}/events/stream`,
    handle((c) => {
      harnessOf(c);
      const userId = userOfRequest(c);
      const { events: types } = queryOf(c, StreamQuery);
      const last = c.req.header("last-event-id");
      const after = last === undefined ? undefined : placeOf(check(LastEventId, last, "Last-Event-ID"));
      const wanted = (event: FeedEvent) => types === undefined || types.includes(event.type);
      return streamSSE(c, async (stream) => {
        const queue: FeedEvent[] = [];
        let wake: (() => void) | undefined;
        // Subscribed before the past is read: an event that comes meanwhile is in one or the other,
        // or both (sent once).
        const unsubscribe = feed.subscribe(userId, (event) => {
          if (queue.length >= MAX_QUEUED_EVENTS) {
            unsubscribe();
            stream.abort();
            return;
          }
          queue.push(event);
          wake?.();
        });
        stream.onAbort(() => wake?.());
        const keepAlive = setInterval(() => void stream.write(": keep-alive\n\n").catch(() => {}), KEEP_ALIVE_MS);
        const send = async (event: FeedEvent) => {
          // No `event:` name: the type is in the data, and EventSource's onmessage sees only unnamed events.
          if (wanted(event)) await stream.writeSSE({ id: event.id, data: JSON.stringify({ type: event.type, ...event.data, timestamp: event.timestamp }) });
        };
        try {
          const replay = after ? eventsOf(oh.executions.list(userId)).filter((event) => comesAfter(event.id, after)) : [];
          const replayed = new Set(replay.map((event) => event.id));
          for (const event of replay) if (!stream.aborted) await send(event);
          while (!stream.aborted) {
            const event = queue.shift();
            if (event) {
              if (!replayed.has(event.id)) await send(event);
              continue;
            }
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        } finally {
          clearInterval(keepAlive);
          unsubscribe();
        }
      });
    }),
  );
}
