// An execution as stored (sqlite/executions.ts holds it as text): what a client reads of it after
// it ended, or after the server that ran it is gone. Written from a live execution's watch; read
// back as a watch frozen where it stopped.
import { z } from "zod";
import type { ExecutionRow } from "../sqlite/executions.ts";
import { writerPath } from "./artifact-paths.ts";
import type { PlanEdit } from "./plan.ts";
import type { ExecutionEvent, ExecutionStatus, RunWatch, ToolCallSummary, UsageStats } from "./run-watch.ts";

/** What the routes read of an execution's run: a live RunWatch, or one frozen from the store. */
export type WatchView = Pick<RunWatch, "status" | "finished" | "output" | "usage" | "awaiting" | "detailed" | "summaries" | "mine" | "touched" | "filesTruncated">;
export type DetailedToolCall = ReturnType<RunWatch["detailed"]>[number];

export type ExecutionRecord = {
  status: ExecutionStatus;
  output: string;
  usage: UsageStats;
  events: ExecutionEvent[];
  tool_calls: DetailedToolCall[];
  summaries: ToolCallSummary[];
  /** The files the run made, as given (RunWatch.touched); absent from records of earlier versions,
   * whose artifacts are those their writing calls named. */
  touched?: string[];
  files_truncated?: boolean;
  /** The todo lists set over the API while it ran (none in a record of an older version). */
  plan_edits?: PlanEdit[];
};

const Usage = z.object({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number() });
// The events and calls as written by this code: checked for their shape as lists of objects only.
const RecordSchema = z.object({
  status: z.enum(["pending", "running", "completed", "failed", "cancelled"]),
  output: z.string(),
  usage: Usage,
  events: z.array(z.looseObject({ type: z.string() })),
  tool_calls: z.array(z.looseObject({ id: z.string() })),
  summaries: z.array(z.looseObject({ id: z.string() })),
  touched: z.array(z.string()).optional(),
  files_truncated: z.boolean().optional(),
  plan_edits: z.array(z.looseObject({ after: z.number(), todos: z.array(z.looseObject({ content: z.string() })), at: z.string() })).optional(),
});

export function recordOf(watch: WatchView, events: ExecutionEvent[], planEdits: PlanEdit[] = []): ExecutionRecord {
  return {
    status: watch.status,
    output: watch.output,
    usage: watch.usage,
    events,
    tool_calls: watch.detailed(),
    summaries: watch.summaries(),
    touched: watch.touched,
    ...(watch.filesTruncated && { files_truncated: true }),
    ...(planEdits.length > 0 && { plan_edits: planEdits }),
  };
}

/** The stored record of `row`; one that does not read (a damaged file) as a failed execution saying so. */
export function readRecord(row: ExecutionRow): ExecutionRecord {
  let value: unknown;
  try {
    value = JSON.parse(row.record);
  } catch {
    value = undefined;
  }
  const parsed = RecordSchema.safeParse(value);
  if (parsed.success) return value as ExecutionRecord;
  const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  return {
    status: "failed",
    output: "",
    usage,
    events: [
      { type: "error", code: "record_damaged", message: `the stored record of execution "${row.id}" is damaged: what it did is in its session's history`, recoverable: false },
      { type: "done", usage },
    ],
    tool_calls: [],
    summaries: [],
  };
}

/** `record` ended by the server's stop, while it was under way: failed, saying so, its events closed. */
export function interrupted(record: ExecutionRecord): ExecutionRecord {
  const message = "the server stopped during this execution: the session's history holds what its run did";
  return {
    ...record,
    status: "failed",
    events: [...record.events, { type: "error", code: "server_stopped", message, recoverable: false }, { type: "done", usage: record.usage }],
  };
}

const STATUSES = new Set<string>(["pending", "running", "completed", "failed", "cancelled"]);

/** A stored status word as the API's (a word this version does not know: failed). */
export function statusOf(word: string): ExecutionStatus {
  return STATUSES.has(word) ? (word as ExecutionStatus) : "failed";
}

/** A watch frozen at its stored `status`, waiting for nothing; what it did is read from `record()`
 * only when asked (a list reads the status alone). */
export function frozenWatch(status: ExecutionStatus, record: () => ExecutionRecord): WatchView {
  return {
    status,
    finished: status === "completed" || status === "failed" || status === "cancelled",
    get output() {
      return record().output;
    },
    get usage() {
      return record().usage;
    },
    awaiting: () => [],
    detailed: () => record().tool_calls,
    summaries: () => record().summaries,
    mine: () => [],
    get touched() {
      const { touched, tool_calls } = record();
      return touched ?? tool_calls.flatMap((call) => (call.status === "completed" ? (writerPath(call.name, call.input as Record<string, unknown>) ?? []) : []));
    },
    get filesTruncated() {
      return record().files_truncated === true;
    },
  };
}
