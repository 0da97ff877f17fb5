// One of a session's tools called directly on the session's runner (started if need be, as a submit
// starts it), with the session's model and permission mode: the session is held in memory for as long
// as the call goes. While a run is under way in the session, a call is refused (409), as the runner
// refuses one while another call or a run is in flight; a submit made during a call fails the same way.
import { queryFor } from "@harness/session";
import type { RunnerEvent } from "@harness/protocol";
import { RunnerHttpError } from "@harness/runner/client";
import type { SessionRegistry } from "../registry.ts";
import { ApiError } from "./errors.ts";

/** `operation`: the capability the call serves, named in its refusals (default tools.invoke). */
export type ToolCallRequest = { userId: string; sessionId: string; toolName: string; input: Record<string, unknown>; signal: AbortSignal; operation?: string };

/** The runner's events of the call; refusals thrown as ApiErrors. */
export type ToolInvoker = (request: ToolCallRequest) => AsyncGenerator<RunnerEvent>;

const OPERATION = "tools.invoke";

export function toolInvoker(registry: SessionRegistry): ToolInvoker {
  return async function* ({ userId, sessionId, toolName, input, signal, operation = OPERATION }) {
    const lease = await registry.acquire(userId, sessionId);
    try {
      if (lease.session.busy) throw new ApiError(409, "conflict", `a run is under way in session "${sessionId}": call the tool once it has ended`, operation);
      const runner = registry.runnerOf(userId, sessionId);
      if (!runner?.invokeTool) throw new ApiError(501, "not_implemented", "this server's runners take no direct tool calls", operation);
      // The session's configuration as its next run would have it.
      const { model, permissionMode } = queryFor(lease.session.snapshot().state, [], "-", "-");
      const events = runner.invokeTool({ toolName, input, ...(model !== undefined && { model }), ...(permissionMode && { permissionMode }) }, { signal });
      try {
        yield* events;
      } catch (error) {
        throw refusalOf(error, toolName, operation);
      }
    } finally {
      lease.release();
    }
  };
}

/** The runner's refusal of the call in the API's words; other failures as they are. */
function refusalOf(error: unknown, toolName: string, operation: string): unknown {
  if (!(error instanceof RunnerHttpError)) return error;
  switch (error.status) {
    case 404:
      return new ApiError(404, "tool_not_found", `no tool "${toolName}" for the session's runs`, operation);
    case 400:
      return new ApiError(400, "invalid_input", `input: ${error.message}`, operation);
    case 409:
      return new ApiError(409, "conflict", `the session's runner is busy (${error.message}): call the tool once it is free`, operation);
    case 422:
      return new ApiError(422, "configuration_refused", error.message, operation);
    case 501:
      return new ApiError(501, "not_implemented", error.message, operation);
    default:
      return new ApiError(502, "runner_error", `the session's runner refused the call (${error.status}): ${error.message}`, operation);
  }
}
