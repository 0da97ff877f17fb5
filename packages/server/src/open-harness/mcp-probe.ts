// A session's MCP servers started on its runner (started if need be, as a submit starts it), asked
// what they offer and stopped: never in the server's process. The session is held in memory while
// the probe goes. While a run is under way in the session, the probe is refused (409), as a direct
// tool call is.
import type { RunnerMcpProbeResult } from "@harness/protocol";
import { RunnerHttpError } from "@harness/runner/client";
import type { SessionRegistry } from "../registry.ts";
import { ApiError } from "./errors.ts";

export type McpProbeRequest = { userId: string; sessionId: string; signal: AbortSignal; operation: string };

/** The servers as the runner found them; refusals thrown as ApiErrors. */
export type McpProber = (request: McpProbeRequest) => Promise<RunnerMcpProbeResult>;

/** How long a probe may take over the API. */
const PROBE_MS = 60_000;

export function mcpProber(registry: SessionRegistry): McpProber {
  return async ({ userId, sessionId, signal, operation }) => {
    const lease = await registry.acquire(userId, sessionId);
    try {
      if (lease.session.busy) throw new ApiError(409, "conflict", `a run is under way in session "${sessionId}": ask once it has ended (its MCP servers are started to be asked)`, operation);
      const runner = registry.runnerOf(userId, sessionId);
      if (!runner?.probeMcp) throw new ApiError(501, "not_implemented", "this server's runners do not start MCP servers to ask them", operation);
      try {
        return await runner.probeMcp({ timeoutMs: PROBE_MS }, { signal });
      } catch (error) {
        throw refusalOf(error, operation);
      }
    } finally {
      lease.release();
    }
  };
}

/** The runner's refusal in the API's words; other failures as they are. */
function refusalOf(error: unknown, operation: string): unknown {
  if (!(error instanceof RunnerHttpError)) return error;
  switch (error.status) {
    case 409:
      return new ApiError(409, "conflict", `the session's runner is busy (${error.message}): ask once it is free`, operation);
    case 422:
      return new ApiError(422, "configuration_refused", error.message, operation);
    case 501:
      return new ApiError(501, "not_implemented", error.message, operation);
    case 504:
      return new ApiError(504, "timeout", error.message, operation);
    default:
      return new ApiError(502, "runner_error", `the session's runner refused to start its MCP servers (${error.status}): ${error.message}`, operation);
  }
}
