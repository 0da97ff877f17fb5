// The requests a session's API caller makes of its runner outside a run: a tool called directly and
// an MCP probe (its servers started, asked what they offer, stopped). At most one is in flight per
// session, and none while it is refused (`calling` names it, for the refusal of a query too). Neither
// is sent again when its runner did not take it: the caller may ask again.
import type { RunnerEvent, RunnerMcpProbe, RunnerMcpProbeResult, RunnerToolCall } from "@harness/protocol";
import { RunnerHttpError } from "@harness/runner/client";
import { carrying, type CarriedOptions } from "./carried.ts";
import type { RunnerLifecycle } from "./lifecycle.ts";
import type { RunStreams } from "./run-streams.ts";
import type { SupervisorOptions } from "./supervisor.ts";

export type DirectCalls = {
  invokeTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent>;
  probeMcp(body: RunnerMcpProbe, opts: { signal: AbortSignal }): Promise<RunnerMcpProbeResult>;
  /** What is in flight directly (a tool call, a probe: at most one), as a refusal says it. */
  calling(): string | undefined;
};

const BUSY_WITH_TOOL_CALL = "a tool call made directly is in flight in this session";
const BUSY_WITH_PROBE = "its MCP servers are being asked (an MCP probe) in this session";

export function directCalls(
  lifecycle: Pick<RunnerLifecycle, "stopped" | "started" | "busyWith">,
  streams: Pick<RunStreams, "stream">,
  options: CarriedOptions & Pick<SupervisorOptions, "planMode" | "credentials">,
): DirectCalls {
  let calling: string | undefined;

  /** A direct tool call carries what a query does besides the session's: the server's runOptions,
   * its plan mode, the credentials (for what the call may ask of a model: a prompt hook's verdict). */
  async function* invokeTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    // Refused here, not by the runner: a runner found busy is taken for one winding down a cancelled
    // run, and closed after a while (see RunnerLifecycle.ensure), which would end the call in flight.
    if (calling) throw new RunnerHttpError(409, calling);
    calling = BUSY_WITH_TOOL_CALL;
    try {
      yield* callTool(body, opts);
    } finally {
      calling = undefined;
    }
  }

  function callTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    return streams.stream(opts.signal, async () => {
      const planned: RunnerToolCall = options.planMode?.() ? { ...body, permissionMode: "plan" } : body;
      const carried = carrying(planned, options);
      // A path for Claude Code's own minting, which a direct call (the builtin agent's tools) has no use for.
      const { googleCredentialsFile: _file, ...keys } = options.credentials ? await options.credentials() : {};
      const runner = await lifecycle.started(opts.signal);
      const events = runner.client.invokeTool({ ...carried, ...keys }, opts)[Symbol.asyncIterator]() as AsyncGenerator<RunnerEvent>;
      return { serving: () => runner, events };
    });
  }

  /** A probe carries what a direct call does but the credentials (starting servers needs none). */
  async function probeMcp(body: RunnerMcpProbe, opts: { signal: AbortSignal }): Promise<RunnerMcpProbeResult> {
    if (lifecycle.stopped()) throw new Error("the server is shutting down");
    if (calling) throw new RunnerHttpError(409, calling);
    calling = BUSY_WITH_PROBE;
    try {
      const carried = carrying(body, options);
      return await lifecycle.busyWith(async () => (await lifecycle.started(opts.signal)).client.probeMcp(carried, opts.signal));
    } finally {
      calling = undefined;
    }
  }

  return { invokeTool, probeMcp, calling: () => calling };
}
