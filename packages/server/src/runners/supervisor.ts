// The runner of one session: its workspace opened on a runner process from the pool on the first
// query, reused while its /health answers, closed (and the process released) after it has been idle
// for a while, and opened again when needed. A runner left running by an earlier server (it died
// mid-run) is adopted, so its run can be re-attached to; one that has gone since is replaced by the
// copy it kept of its run's end, when the run ended with nobody listening.
//
// This file holds the API and puts together its parts: lifecycle.ts (which process serves the
// session, and when it is started, adopted, replaced or let go), run-streams.ts (a request's events,
// watched for a hung or dead runner), queries.ts (runs: query, attach, control, rewind; the ends a
// gone runner kept in kept-run-ends.ts), direct-calls.ts (a tool called directly, an MCP probe) and
// resending.ts (where a request no runner took goes again), shells.ts (the background shells between
// runs); health.ts, carried.ts and
// workspace-url.ts are pure helpers.
import type { RegisteredTool, RunnerEvent, RunnerMcpProbe, RunnerMcpProbeResult, RunnerRunOptions, RunnerToolCall, SessionEndReason } from "@harness/protocol";
import type { RunnerTransport } from "@harness/runner/client";
import { nodeTransport } from "@harness/runner/node-transport";
import type { RunnerPort } from "@harness/session";
import { directCalls } from "./direct-calls.ts";
import { runnerLifecycle } from "./lifecycle.ts";
import { unansweredRequests } from "./not-taken.ts";
import type { RunnerPool } from "./pool.ts";
import type { RunnerProcessInfo } from "./process.ts";
import { queries } from "./queries.ts";
import type { QueryCredentials } from "./query-credentials.ts";
import { resender } from "./resending.ts";
import { runStreams } from "./run-streams.ts";
import { shellCalls } from "./shells.ts";
import type { ServerLog } from "../log/writer.ts";

export { workspaceId } from "./workspace-url.ts";

export type { RunnerProcessInfo };

export type SupervisedRunner = RunnerPort & {
  /** Closes the session's workspace on its runner and releases the process; its conversation
   * ends for `reason` (what its SessionEnd hooks are told; default "other"). */
  stop(reason?: SessionEndReason): Promise<void>;
  /** The process id of the session's runner, if one serves it now. */
  pid(): number | undefined;
  /** The base URL of the session's workspace on its runner (a whole RunnerProtocol), if any. */
  url(): string | undefined;
  /** One of the session's tools called directly on its runner (started if need be; see
   * @harness/protocol runner-tools.ts). Aborting `signal` stops the call. */
  invokeTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncIterable<RunnerEvent>;
  /** The session's MCP servers started on its runner (started if need be) as a run starts them,
   * asked what they offer and stopped (see @harness/protocol runner-mcp.ts). */
  probeMcp(body: RunnerMcpProbe, opts: { signal: AbortSignal }): Promise<RunnerMcpProbeResult>;
};

export type SupervisorOptions = {
  workspace: string;
  /** The runner's own state for the workspace (checkpoints, a backend's transcripts). */
  stateDir?: string;
  /** Runs before the workspace is opened on a runner process (not when one is adopted). */
  beforeOpen?: () => void;
  /** Where the session's runner processes come from. */
  pool: RunnerPool;
  /** The sessions this one may share runner processes with (by default, those of its user). */
  group: string;
  /** This session, unique within the pool. */
  member: string;
  /** The runners' debug log is on: each query names its session (`member`) as its debugLabel. Only
   * then, so that a runner of an older version, adopted after an upgrade, is not sent a field it
   * refuses unless the debug log asks for it. */
  labelsDebug?: boolean;
  /** Credentials sent with every query (the runner's environment holds none), asked for each; a
   * rejection ends the run with its message. */
  credentials?: () => Promise<QueryCredentials>;
  /** What every query carries on top of the session's (the server's runOptions): with each query,
   * not with the runner process, which may outlive this server and serve the next one. */
  runOptions?: RunnerRunOptions;
  /** The session's `.mcp.json` servers its API caller approved, asked for each query and direct call
   * (RunnerQuery.mcpApprovals). */
  mcpApprovals?: () => readonly { name: string; entry: string }[];
  /** The tools programs registered for the session, asked for each query (RunnerQuery.registeredTools). */
  registeredTools?: () => readonly RegisteredTool[];
  /** Whether a query goes in plan mode now, over the session's mode (see ServerOptions.planMode). */
  planMode?: () => boolean;
  /** A run's failure is told in the words of the user's shell (see ServerOptions.userShell). */
  userShell?: boolean;
  /** The workspace is closed and the process released after this long without activity. */
  idleMs: number;
  log: ServerLog;
  /** The runner an earlier server used for this session (url: the workspace's URL), to take over. */
  adopt?: RunnerProcessInfo;
  /** The version of the runners this server starts (RunnerHealth.version). An adopted runner of
   * another one (the code before an upgrade) serves only the run it has in flight, followed to its
   * end, and is then let go (its process stopped once no session has a run on it): its query body
   * and events may be other than this server's. */
  runnerVersion?: string;
  /** Hears each change of the session's runner (undefined: none serves it), to record it. */
  onProcess?: (info: RunnerProcessInfo | undefined) => void;
  /** How long a workspace may stay busy with a cancelled run before that run is dropped (default 5 s). */
  busyGraceMs?: number;
  /** How the server speaks HTTP to the runner (default: node:http, shared by all sessions). */
  transport?: RunnerTransport;
  /** A run silent this long has its runner asked /health; one that does not answer (a process
   * stopped or hung) is stopped, and its runs end saying so (default 30 s). */
  stallMs?: number;
};

/** How the server speaks HTTP to its runners: node:http, cheaper per event than fetch. */
const sharedTransport = nodeTransport();

export function createSupervisedRunner(options: SupervisorOptions): SupervisedRunner {
  // Requests a runner never answered may go to another runner (see resending.ts).
  const unanswered = unansweredRequests(options.transport ?? sharedTransport);
  const lifecycle = runnerLifecycle(options, unanswered.transport);
  const streams = runStreams(lifecycle, options);
  const direct = directCalls(lifecycle, streams, options);
  const runs = queries(lifecycle, streams, resender(lifecycle, unanswered, options), direct.calling, options);
  return {
    ...runs,
    ...shellCalls(lifecycle),
    invokeTool: direct.invokeTool,
    probeMcp: direct.probeMcp,
    pid: () => lifecycle.live()?.process.pid,
    url: () => lifecycle.live()?.url,
    stop: (reason) => lifecycle.stop(reason),
  };
}
