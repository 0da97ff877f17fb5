// The server's log over the Open Harness API (diagnostics.logs, diagnostics.streamLogs): the
// records the server logged most recently (log/buffer.ts, fed after the log's hiding of secrets, so
// a record shows what the log shows and no more), as the spec's LogEntry, the most recent first;
// and live as SSE, resumed after Last-Event-ID. The log is the whole server's (every user's sessions,
// the paths of its runners): the holder of a person's own token (HARNESS_TOKENS_FILE) is refused it,
// as GET /metrics refuses them; the shared token, or a server without tokens, reads it.
import type { Context } from "hono";
import { z } from "zod";
import { tokenUsers } from "../auth/auth.ts";
import { IdSchema } from "../ids.ts";
import { atLeast, type LogBuffer, type LogRecord } from "../log/buffer.ts";
import { LOG_LEVELS } from "../log/settings.ts";
import { check } from "../sessions/api.ts";
import { H, handle, harnessOf, queryOf, userOfRequest, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import { streamLive } from "./live-sse.ts";
import { page, PaginationSchema } from "./shapes.ts";

const Time = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date and time" });
const Filters = z.object({
  level: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }).optional(),
  session_id: IdSchema.optional(),
  execution_id: z.string().min(1, "must not be empty").max(200, "must be at most 200 characters").optional(),
});
const ListQuery = PaginationSchema.extend({ ...Filters.shape, since: Time.optional(), until: Time.optional() }).passthrough();
const StreamQuery = Filters.passthrough();
const ID = /^([0-9a-z]{1,12})-(\d{1,15})$/;
const LastEventId = z.string().regex(ID, "is no id this log gave");

/** A run's last lines (its end, its runner's) may come a little after its execution has ended. */
const END_GRACE_MS = 2000;

export type LogEntry = { id: string; timestamp: string; level: string; message: string; context?: Record<string, unknown> };

/** `record` as the spec's LogEntry: its text line as the message, the fields of its JSON form as the
 * context (msg among them when it says something the line does not). */
function entryOf(record: LogRecord, epoch: string): LogEntry {
  const context: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record.detail ?? {})) {
    if (value !== undefined && name !== "level" && !(name === "msg" && value === record.line)) context[name] = value;
  }
  return {
    id: `${epoch}-${record.seq}`,
    timestamp: new Date(record.at).toISOString(),
    level: record.level,
    message: record.line,
    ...(Object.keys(context).length > 0 && { context }),
  };
}

/** Which records the query's filters (level, session_id, execution_id) let through. A session's and
 * an execution's are their user's: the request names the user, as for the sessions themselves. An
 * execution's records are its session's from its start to its end. */
function filterOf(oh: OpenHarness, c: Context, query: z.infer<typeof Filters>): (record: LogRecord) => boolean {
  const { level, session_id: sessionId, execution_id: executionId } = query;
  const userId = sessionId !== undefined || executionId !== undefined ? userOfRequest(c) : undefined;
  const execution = executionId === undefined ? undefined : oh.executions.get(userId!, executionId);
  if (executionId !== undefined && !execution) throw new ApiError(404, "execution_not_found", `no execution "${executionId}" (executions are kept for an hour after they end)`);
  const from = execution && Date.parse(execution.startedAt);
  const ofSession = (record: LogRecord, session: string) => record.detail?.user === userId && record.detail?.session === session;
  return (record) => {
    if (level !== undefined && !atLeast(record.level, level)) return false;
    if (sessionId !== undefined && !ofSession(record, sessionId)) return false;
    if (execution) {
      // Read at each record: a stream's execution may end meanwhile.
      const to = execution.completedAt === undefined ? Infinity : Date.parse(execution.completedAt) + END_GRACE_MS;
      if (record.detail?.execution !== execution.id && !(ofSession(record, execution.sessionId) && record.at >= from! && record.at <= to)) return false;
    }
    return true;
  };
}

/** The log is the whole server's: not for the holder of a person's own token. */
function refusePersonalTokens(c: Context, operation: string): void {
  if (tokenUsers.get(c.req.raw) !== undefined) {
    throw new ApiError(403, "forbidden", "the server's log is the whole server's (every user's): send the shared token (HARNESS_TOKEN), not a person's own", operation);
  }
}

export function mountLogRoutes(oh: OpenHarness, logs: LogBuffer): void {
  // Ids go on from one server's start to its stop: a stream resumed on a restarted server, after an
  // id of the one before, is sent every record kept.
  const epoch = Date.parse(oh.startedAt).toString(36);
  oh.app.get(
    `${H}/logs`,
    handle((c) => {
      harnessOf(c);
      refusePersonalTokens(c, "diagnostics.logs");
      const query = queryOf(c, ListQuery);
      const since = query.since === undefined ? -Infinity : Date.parse(query.since);
      const until = query.until === undefined ? Infinity : Date.parse(query.until);
      if (until < since) throw new ApiError(400, "invalid_request", "until: must not be before since");
      const wanted = filterOf(oh, c, query);
      const kept = logs.records();
      const newestFirst: LogRecord[] = [];
      for (let i = kept.length - 1; i >= 0; i--) {
        const record = kept[i];
        if (record.at > since && record.at < until && wanted(record)) newestFirst.push(record);
      }
      const shown = page(newestFirst, query);
      return c.json({ ...shown, data: shown.data.map((record) => entryOf(record, epoch)) });
    }),
  );
  oh.app.get(
    `${H}/logs/stream`,
    handle((c) => {
      harnessOf(c);
      refusePersonalTokens(c, "diagnostics.streamLogs");
      const wanted = filterOf(oh, c, queryOf(c, StreamQuery));
      const last = c.req.header("last-event-id");
      const place = last === undefined ? undefined : ID.exec(check(LastEventId, last, "Last-Event-ID"))!;
      return streamLive<LogRecord>(c, {
        subscribe: (listener) => logs.subscribe(listener),
        missed: () => (place === undefined ? [] : place[1] === epoch ? logs.after(Number(place[2])) : logs.records()),
        idOf: (record) => `${epoch}-${record.seq}`,
        dataOf: (record) => (wanted(record) ? JSON.stringify(entryOf(record, epoch)) : undefined),
      });
    }),
  );
}
