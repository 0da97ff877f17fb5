// The conformance routes: conformance.run starts the suite (run.ts) against this server's own API,
// conformance.stream follows a run's events (replayed, then live, from Last-Event-ID), and
// conformance.results and conformance.status read the runs kept for the user.
import type { Context } from "hono";
import { z } from "zod";
import { requestToken } from "../../auth/auth.ts";
import type { ConformanceRunStore } from "../../sqlite/conformance-runs.ts";
import { bodyOf, check } from "../../sessions/api.ts";
import { H, handle, harnessOf, queryOf, userOfRequest, PREFIX, type OpenHarness } from "../common.ts";
import { ApiError, errorBody } from "../errors.ts";
import { HARNESS_ID } from "../manifest.ts";
import { page, PaginationSchema } from "../shapes.ts";
import { streamFollowed } from "../sse.ts";
import { createConformanceRunner } from "./run.ts";
import { statusOf } from "./status.ts";
import { CATEGORIES, DEFAULT_CATEGORIES, ON_REQUEST, type Category, type RunRecord } from "./types.ts";

const RunBody = z.strictObject({
  categories: z.array(z.string({ error: "must be a list of category names" }), { error: "must be a list of category names" }).min(1, "must name at least one category (or be left out: all of them)").optional(),
  quick: z.boolean({ error: "must be true or false" }).optional(),
});
const StreamQuery = z.object({ run_id: z.string().min(1, "must not be empty").max(100, "must be at most 100 characters").optional() }).passthrough();
const LastEventId = z.coerce.number({ error: "must be the number of an event of the run" }).int("must be the number of an event of the run").min(0, "must not be negative");

export type ConformanceOptions = {
  store: ConformanceRunStore;
  /** This server's own address, which the suite's requests go to; undefined before it listens. */
  selfUrl: () => string | undefined;
  log: (line: string, detail?: Record<string, unknown>) => void;
};

/** The most unknown categories a refusal names, and the most characters of each. */
const SHOWN_UNKNOWN = 5;
const SHOWN_CHARS = 40;
const quoted = (name: string) => (name.length <= SHOWN_CHARS ? `"${name}"` : `"${name.slice(0, SHOWN_CHARS)}…" (${name.length} characters)`);

/** The categories `named` asks for, in the suite's order (the default ones when it names none); 400
 * naming the unknown ones. */
export function categoriesOf(named: string[] | undefined): Category[] {
  if (named === undefined) return [...DEFAULT_CATEGORIES];
  const unknown = [...new Set(named.filter((name) => !(CATEGORIES as readonly string[]).includes(name)))];
  if (unknown.length) {
    // A body of 64 KiB may name thousands, or one of 60,000 characters: the message stays short.
    const shown = unknown.slice(0, SHOWN_UNKNOWN).map(quoted).join(", ");
    const more = unknown.length > SHOWN_UNKNOWN ? ` and ${unknown.length - SHOWN_UNKNOWN} more` : "";
    throw new ApiError(400, "invalid_request", `categories: unknown ${shown}${more}; the categories are ${CATEGORIES.join(", ")} (${ON_REQUEST.join(", ")} only when named: it runs prompts on the model)`, "conformance.run");
  }
  return CATEGORIES.filter((category) => named.includes(category));
}

/** A stored record's fields, those of a damaged row defaulted. */
function recordOf(record: unknown): RunRecord {
  const r = record as Partial<RunRecord>;
  return { harness_version: "", categories: [], quick: false, result: "fail", passed: 0, failed: 0, skipped: 0, golden_rule_violations: 0, duration_ms: 0, run_at: "", outcomes: {}, events: [], ...r };
}

export function mountConformanceRoutes(oh: OpenHarness, options: ConformanceOptions): void {
  const { app } = oh;
  const runner = createConformanceRunner({ store: options.store, version: oh.version, workDirOf: oh.workDirOf, log: options.log, stopping: oh.stopping });
  const records = (userId: string) => options.store.list(userId).map((run) => ({ id: run.id, ...recordOf(run.record) }));

  app.post(
    `${H}/conformance/run`,
    handle(async (c) => {
      harnessOf(c);
      const body = check(RunBody, await bodyOf(c));
      const categories = categoriesOf(body.categories);
      const userId = userOfRequest(c);
      const under = runner.running();
      if (under) {
        const whose = under.userId === userId ? `run ${under.id}` : "another user's run";
        const body = errorBody("conformance_run_in_progress", `a conformance run is under way (${whose}): one runs at a time; follow it, or try again once it has ended`, "conformance.run");
        return c.json({ error: { ...body.error, ...(under.userId === userId && { details: { run_id: under.id } }) } }, 409);
      }
      const baseUrl = options.selfUrl();
      if (baseUrl === undefined) throw new ApiError(503, "unavailable", "the server does not listen yet: try again in a moment", "conformance.run");
      const token = requestToken(c.req.header("authorization"), new URL(c.req.url));
      const run = runner.start({ baseUrl, userId, ...(token !== undefined && { token }), categories, quick: body.quick ?? false, routes: app.routes });
      const streamUrl = new URL(`${PREFIX}/harnesses/${HARNESS_ID}/conformance/run/stream?run_id=${run.id}`, c.req.url).toString();
      return c.json({ run_id: run.id, status: "running", stream_url: streamUrl }, 202);
    }),
  );

  app.get(
    `${H}/conformance/run/stream`,
    handle((c: Context) => {
      harnessOf(c);
      const userId = userOfRequest(c);
      const query = queryOf(c, StreamQuery);
      const last = c.req.header("last-event-id");
      const after = last === undefined ? 0 : check(LastEventId, last, "Last-Event-ID");
      const under = runner.running();
      const runId = query.run_id ?? (under?.userId === userId ? under.id : options.store.list(userId)[0]?.id);
      if (runId === undefined) throw new ApiError(404, "conformance_run_not_found", "no conformance run yet: start one with POST .../conformance/run", "conformance.stream");
      const live = runner.live(userId, runId);
      if (live) return streamFollowed(c, { listeners: live.listeners, items: () => live.events, ended: () => live.ended }, after);
      const stored = options.store.get(userId, runId);
      if (!stored) throw new ApiError(404, "conformance_run_not_found", `no conformance run "${runId}" (the last 50 runs are kept)`, "conformance.stream");
      const { events } = recordOf(stored.record);
      return streamFollowed(c, { listeners: new Set(), items: () => events, ended: () => true }, after);
    }),
  );

  app.get(
    `${H}/conformance/results`,
    handle((c) => {
      harnessOf(c);
      const query = queryOf(c, PaginationSchema.passthrough());
      const runs = records(userOfRequest(c)).map(({ id, events: _events, outcomes: _outcomes, ...run }) => ({ id, ...run }));
      return c.json(page(runs, query));
    }),
  );

  app.get(
    `${H}/conformance/status`,
    handle((c) => {
      harnessOf(c);
      return c.json(statusOf(records(userOfRequest(c))));
    }),
  );
}
