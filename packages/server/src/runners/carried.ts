// What every request a session sends its runner (a query, a direct tool call, an MCP probe) carries
// on top of the session's own body: its owner for telemetry, the debug label, the server's
// runOptions and the session's approvals of `.mcp.json` servers. Pure of any runner state.
import type { RunnerMcpProbe, RunnerQuery, RunnerToolCall } from "@harness/protocol";
import type { SupervisorOptions } from "./supervisor.ts";

export type CarriedOptions = Pick<SupervisorOptions, "member" | "labelsDebug" | "runOptions" | "mcpApprovals">;

/** `body` with what every request carries besides the session's: its owner (telemetry), the
 * debug label, the server's runOptions and the session's approvals of `.mcp.json` servers. */
export function carrying<T extends RunnerQuery | RunnerToolCall | RunnerMcpProbe>(body: T, options: CarriedOptions): T {
  const approvals = options.mcpApprovals?.() ?? [];
  return {
    ...body,
    telemetry: ownerOf(options.member),
    ...(options.labelsDebug && { debugLabel: options.member }),
    ...(options.runOptions && { runOptions: options.runOptions }),
    ...(approvals.length > 0 && { mcpApprovals: [...approvals] }),
  };
}

/** The user and session of a runner's member ("user/session"), for its telemetry. */
export function ownerOf(member: string): { userId: string; sessionId: string } {
  const slash = member.indexOf("/");
  return slash > 0 ? { userId: member.slice(0, slash), sessionId: member.slice(slash + 1) } : { userId: member, sessionId: member };
}
