// Executions over the Open Harness API: a prompt run in a session (a new one without session_id),
// started and followed by SSE, or streamed at once; its status, result and cancel.
import type { Context } from "hono";
import { z } from "zod";
import { IdSchema } from "../ids.ts";
import { bodyOf, check } from "../sessions/api.ts";
import { artifactsOf, openArtifact } from "./artifacts.ts";
import { ApiError } from "./errors.ts";
import { fileAnswer } from "./file-answer.ts";
import type { Execution } from "./executions.ts";
import { forward } from "./forward.ts";
import { HARNESS_ID } from "./manifest.ts";
import { H, handle, harnessOf, PREFIX, queryOf, refuseUnsupported, userOfRequest, type OpenHarness } from "./common.ts";
import { Content, createSession } from "./routes-sessions.ts";
import { page, PaginationSchema } from "./shapes.ts";
import { streamExecution } from "./sse.ts";

const UNSUPPORTED = ["agent_id", "skills", "model", "max_tokens", "temperature", "system_prompt"];
const ExecuteBody = z.strictObject({
  message: Content,
  session_id: IdSchema.optional(),
  ...Object.fromEntries(UNSUPPORTED.map((field) => [field, z.unknown().optional()])),
});
const ListQuery = PaginationSchema.extend({
  status: z.enum(["pending", "running", "completed", "failed", "cancelled"]).optional(),
  agent_id: z.string().optional(),
  since: z.iso.datetime({ offset: true, error: "must be an ISO 8601 date and time" }).optional(),
}).passthrough();
const InputBody = z.strictObject({ data: z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }).max(10_000, "must be at most 10000 characters") });
/** The answers to a call that waits to be approved. */
export const YES = /^(y|yes|approve|allow)$/i;
export const NO = /^(n|no|deny)$/i;
export const LastEventId = z.coerce.number({ error: "must be a number" }).int("must be an integer").min(0, "must not be negative");

/** The execution as the spec has it; its artifacts counted as the list gives them. */
async function executionShape(oh: OpenHarness, execution: Execution) {
  const [waitsFor] = execution.watch.awaiting();
  const artifacts = await artifactsOf(oh, execution);
  return {
    id: execution.id,
    harness_id: HARNESS_ID,
    status: execution.watch.status,
    started_at: execution.startedAt,
    ...(execution.completedAt !== undefined && { completed_at: execution.completedAt }),
    artifacts_count: artifacts.length,
    session_id: execution.sessionId,
    // What the run waits for (a tool call's approval), answered by POST …/input yes or no.
    ...(waitsFor && { pending_input: { tool_call_id: waitsFor.toolCallId, tool_name: waitsFor.toolName, prompt: waitsFor.description } }),
  };
}

/** The user's execution the path names (:executionId). */
export function executionNamed(oh: OpenHarness, c: Context): Execution {
  harnessOf(c);
  const id = c.req.param("executionId")!;
  const execution = oh.executions.get(userOfRequest(c), id);
  if (!execution) throw new ApiError(404, "execution_not_found", `no execution "${id}" (executions are kept for an hour after they end)`);
  return execution;
}

export function mountExecutionRoutes(oh: OpenHarness): void {
  const { app, executions } = oh;

  /** Starts the body's prompt in its session (which must be the user's), or in a new one. */
  async function start(c: Context, operation: string): Promise<Execution> {
    harnessOf(c);
    const body = check(ExecuteBody, await bodyOf(c));
    refuseUnsupported(body, UNSUPPORTED, operation);
    const userId = userOfRequest(c);
    let sessionId = body.session_id;
    if (sessionId === undefined) sessionId = await createSession(oh, c, userId);
    else await forward(app, c, "GET", `/sessions/${encodeURIComponent(sessionId)}?userId=${encodeURIComponent(userId)}`);
    return executions.start(userId, sessionId, body.message);
  }

  const executionOf = (c: Context) => executionNamed(oh, c);

  app.post(
    `${H}/execute`,
    handle(async (c) => {
      const execution = await start(c, "execution.run");
      const streamUrl = new URL(`${PREFIX}/harnesses/${HARNESS_ID}/executions/${execution.id}/stream`, c.req.url).toString();
      return c.json({ execution_id: execution.id, status: execution.watch.status, stream_url: streamUrl, session_id: execution.sessionId }, 202);
    }),
  );
  app.post(
    `${H}/execute/stream`,
    handle(async (c) => streamExecution(c, await start(c, "execution.stream"))),
  );
  app.get(
    `${H}/executions`,
    handle(async (c) => {
      harnessOf(c);
      const query = queryOf(c, ListQuery);
      refuseUnsupported(query, ["agent_id"], "execution.list");
      const since = query.since === undefined ? undefined : Date.parse(query.since);
      const all = executions
        .list(userOfRequest(c))
        .filter((execution) => (query.status ?? execution.watch.status) === execution.watch.status && (since === undefined || Date.parse(execution.startedAt) >= since));
      const listed = page(all, query);
      return c.json({ ...listed, data: await Promise.all(listed.data.map((execution) => executionShape(oh, execution))) });
    }),
  );
  app.get(
    `${H}/executions/:executionId/tool-calls`,
    handle((c) => c.json({ tool_calls: executionOf(c).watch.detailed() })),
  );
  app.get(
    `${H}/executions/:executionId/artifacts`,
    handle(async (c) => {
      const execution = executionOf(c);
      // `truncated`: the run changed more files than it could name (see MAX_CHANGED_FILES).
      return c.json({ artifacts: await artifactsOf(oh, execution), ...(execution.watch.filesTruncated && { truncated: true }) });
    }),
  );
  app.get(
    `${H}/executions/:executionId/artifacts/:artifactId`,
    handle(async (c) => {
      const execution = executionOf(c);
      const { handle: file, info } = await openArtifact(oh, execution, c.req.param("artifactId")!);
      return fileAnswer(c, file, info, true);
    }),
  );
  app.get(
    `${H}/executions/:executionId`,
    handle(async (c) => c.json({ execution: await executionShape(oh, executionOf(c)) })),
  );
  app.get(
    `${H}/executions/:executionId/stream`,
    handle((c) => {
      const execution = executionOf(c);
      const last = c.req.header("last-event-id");
      return streamExecution(c, execution, last === undefined ? 0 : check(LastEventId, last, "Last-Event-ID"));
    }),
  );
  app.post(
    `${H}/executions/:executionId/cancel`,
    handle(async (c) => {
      const execution = executionOf(c);
      if (!execution.cancel()) throw new ApiError(409, "execution_finished", `execution "${execution.id}" has already ended (${execution.watch.status})`, "execution.cancel");
      return c.json({ execution: await executionShape(oh, execution), cancelled: true });
    }),
  );
  app.post(
    `${H}/executions/:executionId/input`,
    handle(async (c) => {
      const execution = executionOf(c);
      const { data } = check(InputBody, await bodyOf(c));
      if (execution.watch.finished) throw new ApiError(410, "execution_finished", `execution "${execution.id}" has already ended (${execution.watch.status})`, "execution.sendInput");
      const [waitsFor] = execution.watch.awaiting();
      if (!waitsFor) throw new ApiError(409, "not_waiting", `execution "${execution.id}" is not waiting for input`, "execution.sendInput");
      const answer = data.trim();
      if (!YES.test(answer) && !NO.test(answer)) {
        throw new ApiError(400, "invalid_request", `data: answer yes or no to ${waitsFor.toolName}: ${waitsFor.description}`, "execution.sendInput");
      }
      execution.answer(waitsFor.toolCallId, YES.test(answer));
      return c.json({ accepted: true });
    }),
  );
  app.get(
    `${H}/executions/:executionId/result`,
    handle(async (c) => {
      const execution = executionOf(c);
      const { watch } = execution;
      if (!watch.finished) throw new ApiError(409, "execution_running", `execution "${execution.id}" is still ${watch.status}: its result comes when it ends`, "execution.result");
      return c.json({
        result: { execution_id: execution.id, status: watch.status, output: watch.output, artifacts: await artifactsOf(oh, execution), tool_calls: watch.summaries(), usage: watch.usage },
      });
    }),
  );
}
