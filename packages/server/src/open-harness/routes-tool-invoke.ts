// tools.invoke and tools.invokeStream: one of a session's tools (named by session_id, as tools.get
// names it) called with the input the model would give it, run by the session's runner as a run would
// run it (tool-invoke.ts). The answer:
//   invoke         200 { success, output: { content }, duration_ms, error? } (content: the result the
//                  model would get, bounded as the tool bounds it; error: the same when it failed)
//   invokeStream   SSE of { type: "output", data: { text, replace? } } as the tool reports progress (a
//                  command's output as it prints; `replace`: the output so far in place of what came
//                  before), then { type: "output", data: { content } } (the result), an { type: "error" }
//                  when it failed, and { type: "done", success, duration_ms }.
// Refusals, for both (a stream's are answered before it starts): 400 a body other than { input } or an
// input the tool's schema refuses (naming the field), 404 an unknown tool or session, 403 a call the
// permission rules, the mode or a PreToolUse hook refuse (permission_denied, naming the rule) or that
// would ask for approval (approval_required: no one is asked; a rule or the session's mode must allow
// it), 409 while a run is under way in the session. Closing the request stops the call.
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { MAX_ID_CHARS, type RunnerEvent } from "@harness/protocol";
import { bodyOf, check } from "../sessions/api.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import { ownSession, SessionQuery } from "./session-of.ts";

const InvokeBody = z.strictObject({ input: z.record(z.string(), z.unknown()) });

type Completed = Extract<RunnerEvent, { type: "tool.completed" }>;
type Call = { events: AsyncIterator<RunnerEvent>; toolName: string; started: number };

async function startCall(oh: OpenHarness, c: Context, signal: AbortSignal, operation: string): Promise<Call> {
  const toolName = c.req.param("toolId")!;
  const { session_id } = queryOf(c, SessionQuery);
  const userId = await ownSession(oh, c, session_id);
  // Claude Code's tools are its own: the runner runs the builtin agent's.
  if (oh.backend !== "builtin") throw new ApiError(501, "not_implemented", `tools are invoked only with the builtin backend; this server runs ${oh.backend}`, operation);
  const { input } = check(InvokeBody, await bodyOf(c));
  // A name longer than any tool's is none: refused here, as the runner would, without asking it.
  if (toolName.length > MAX_ID_CHARS) throw new ApiError(404, "tool_not_found", `no tool "${toolName}" for the session's runs`, operation);
  const events = oh.invokeTool({ userId, sessionId: session_id, toolName, input, signal });
  return { events, toolName, started: performance.now() };
}

/** A call the gate refused, as the API's 403. */
function refusal(completed: Completed, toolName: string, operation: string): ApiError | undefined {
  if (!completed.denied) return undefined;
  if (!completed.needsApproval) return new ApiError(403, "permission_denied", completed.output, operation);
  const how = "allow it with a permission rule in the session's settings, or set the session's permission mode (acceptEdits, fullAuto)";
  return new ApiError(403, "approval_required", `${toolName} needs approval here, and a direct call asks no one: ${how}. ${completed.output}`, operation);
}

const elapsed = (call: Call) => Math.round(performance.now() - call.started);

async function invoke(oh: OpenHarness, c: Context): Promise<Response> {
  const call = await startCall(oh, c, c.req.raw.signal, "tools.invoke");
  let completed: Completed | undefined;
  let failure: string | undefined;
  for (let next = await call.events.next(); !next.done; next = await call.events.next()) {
    const event = next.value;
    if (event.type === "tool.completed") completed = event;
    else if (event.type === "run.error") failure = event.message;
  }
  if (!completed) throw new ApiError(502, "runner_error", `the call ended without a result: ${failure ?? "no reason given"}`, "tools.invoke");
  const refused = refusal(completed, call.toolName, "tools.invoke");
  if (refused) throw refused;
  return c.json({ success: !completed.isError, output: { content: completed.output }, duration_ms: elapsed(call), ...(completed.isError && { error: completed.output }) });
}

async function invokeStream(oh: OpenHarness, c: Context): Promise<Response> {
  const closed = new AbortController();
  const call = await startCall(oh, c, AbortSignal.any([c.req.raw.signal, closed.signal]), "tools.invokeStream");
  // Until the call starts, a refusal is answered as invoke answers it.
  const early: RunnerEvent[] = [];
  for (;;) {
    const next = await call.events.next();
    if (next.done) break;
    early.push(next.value);
    if (next.value.type === "tool.started" || next.value.type === "tool.output") break;
    const refused = next.value.type === "tool.completed" ? refusal(next.value, call.toolName, "tools.invokeStream") : undefined;
    if (refused) {
      await call.events.return?.();
      throw refused;
    }
  }
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => closed.abort());
    let id = 0;
    const send = (data: object) => stream.writeSSE({ id: String(++id), data: JSON.stringify(data) });
    let success = false;
    let done = false;
    const forward = async (event: RunnerEvent) => {
      if (event.type === "tool.output") await send({ type: "output", data: { text: event.text, ...(event.replace && { replace: true }) } });
      else if (event.type === "tool.completed") {
        success = !event.isError;
        await send({ type: "output", data: { content: event.output } });
        if (event.isError) await send({ type: "error", code: event.denied ? "permission_denied" : "tool_error", message: event.output });
      } else if (event.type === "run.error") await send({ type: "error", code: "runner_error", message: event.message });
      if (event.type === "run.completed" || event.type === "run.error") done = true;
    };
    try {
      for (const event of early) await forward(event);
      while (!done && !stream.aborted) {
        const next = await call.events.next();
        if (next.done) break;
        await forward(next.value);
      }
    } catch (error) {
      if (!stream.aborted) await send({ type: "error", code: error instanceof ApiError ? error.code : "runner_error", message: (error as Error).message });
      success = false;
    } finally {
      await call.events.return?.();
    }
    if (!stream.aborted) await send({ type: "done", success, duration_ms: elapsed(call) });
  });
}

export function mountToolInvokeRoutes(oh: OpenHarness): void {
  oh.app.post(`${H}/tools/:toolId/invoke`, handle((c) => invoke(oh, c)));
  oh.app.post(`${H}/tools/:toolId/invoke/stream`, handle((c) => invokeStream(oh, c)));
}
