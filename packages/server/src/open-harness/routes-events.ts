// The event feed over the Open Harness API (hooks.listEvents, hooks.streamEvents): the user's own
// executions' starts and ends and their other events (event-feed.ts). The list reads the executions
// kept and the event store (both outlive a restart); the stream sends the events after Last-Event-ID
// (none without it), then each new one as it happens, until the client goes away or falls too far
// behind (live-sse.ts).
import { z } from "zod";
import { check } from "../sessions/api.ts";
import { H, handle, harnessOf, queryOf, userOfRequest, type OpenHarness } from "./common.ts";
import { comesAfter, EVENT_TYPES, eventsOf, placeOf, type EventFeed, type FeedEvent } from "./event-feed.ts";
import { streamLive } from "./live-sse.ts";
import { isNoteType } from "./event-store.ts";
import { PaginationSchema } from "./shapes.ts";

const EventType = z.enum(EVENT_TYPES, { error: (issue) => `${JSON.stringify(issue.input)} is no event type: must be one of ${EVENT_TYPES.join(", ")}` });
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

export function mountEventRoutes(oh: OpenHarness, feed: EventFeed): void {
  const { app } = oh;
  app.get(
    `${H}/events`,
    handle((c) => {
      harnessOf(c);
      const query = queryOf(c, ListQuery);
      const since = query.since === undefined ? undefined : Date.parse(query.since);
      const userId = userOfRequest(c);
      const matches = (event: FeedEvent) => (query.type ?? event.type) === event.type && (since === undefined || Date.parse(event.timestamp) > since);
      // The store's events are read as far as the page goes (the newest offset + limit that match),
      // and counted: merged with the executions', the page's are the same as of the whole feed.
      const noteQuery = { ...(query.type !== undefined && isNoteType(query.type) && { type: query.type }), ...(since !== undefined && { since }) };
      const wantsNotes = query.type === undefined || isNoteType(query.type);
      const notes = wantsNotes ? oh.events.list(userId, noteQuery, query.offset + query.limit) : [];
      const all = eventsOf(oh.executions.list(userId), notes).reverse().filter(matches);
      const total = all.length - notes.length + (wantsNotes ? oh.events.count(userId, noteQuery) : 0);
      const data = all.slice(query.offset, query.offset + query.limit);
      return c.json({ data, total, limit: query.limit, offset: query.offset, has_more: query.offset + data.length < total });
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
      return streamLive<FeedEvent>(c, {
        subscribe: (listener) => feed.subscribe(userId, listener),
        missed: () => (after ? eventsOf(oh.executions.list(userId), oh.events.list(userId, { after })).filter((event) => comesAfter(event.id, after)) : []),
        idOf: (event) => event.id,
        dataOf: (event) => (types === undefined || types.includes(event.type) ? JSON.stringify({ type: event.type, ...event.data, timestamp: event.timestamp }) : undefined),
      });
    }),
  );
}
