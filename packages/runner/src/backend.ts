// The seam between the runner's HTTP surface and whatever agent actually does the work.
import type { PermissionUpdate } from "@harness/agent";
import type { McpProbeOutcome } from "@harness/agent";
import type { ConversationShells } from "@harness/agent/resources";
import type { PreparedInvocation } from "@harness/agent/invoke-tool";
import type { AgentEvent, ConversationSpent, KillShellAnswer, ModelFailure, RewindResult, RunConfigureBody, RunnerMcpProbe, RunnerQuery, RunnerToolCall, SessionEndReason, TodoItem, TranscriptMessage, Usage } from "@harness/protocol";

/** `answered`: settles the request without the user (a change of permission mode decided it). */
/** `reason`: why the call asks, when a hook or a rule made it ask (see approval.requested). */
export type ApprovalRequest = { toolUseId: string; toolName: string; description: string; reason?: string; input?: Record<string, unknown>; answered?: Promise<ApprovalDecision> };
/** `updatedPermissions`: what the approval changes for the calls after it (builtin backend only). */
export type ApprovalDecision =
  | { behavior: "allow"; updatedInput?: Record<string, unknown>; reason?: string; updatedPermissions?: readonly PermissionUpdate[] }
  | { behavior: "deny"; reason?: string };

export type BackendContext = {
  /** Fires when the run must stop: cancel, the client closed the request (unless it asked the run
   * to keep running), or the runner is shutting down. */
  signal: AbortSignal;
  /** Streams an event to the client. Must not be called after run() settles. */
  emit: (event: AgentEvent) => void;
  /** The runner's workspace directory; the default working directory of a run. */
  workspace: string;
  /** A directory outside the workspace for this workspace's runner-side state (checkpoints, a
   * backend's own transcripts); it survives runner restarts. */
  stateDir: string;
  /** Present on interactive runs: asks the session to decide on a tool call. The runner emits
   * approval.requested and approval.resolved around it. Absent: nobody can be asked (deny "ask"). */
  requestApproval?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** Steer messages sent while the run is in flight, in order. The backend delivers them to the
   * model at its next turn boundary and emits user.message {steer: true} when it does. */
  steering: SteerInbox;
  /** Subscribes to configuration changes sent while the run is in flight (from the next model call). */
  onConfigure(listener: (config: RunConfigureBody) => void): () => void;
  /** Subscribes to requests to stop the sub-agent of one of the run's Task calls, the run going on;
   * the listener answers whether it had that sub-agent running. Absent: nobody asks. */
  onStopAgent?(listener: (toolUseId: string) => boolean): () => void;
  /** Subscribes to requests to move a running Bash call of the run to the background (by its id;
   * every running one without), the run going on; the listener answers whether it moved a call.
   * Absent: nobody asks. */
  onBackground?(listener: (toolUseId: string | undefined) => boolean): () => void;
  /** Subscribes to requests to stop one of the conversation's background shells by its id while the
   * run goes on; the listener says what it did. Absent: nobody asks. */
  onKillShell?(listener: (shellId: string) => KillShellAnswer): () => void;
  /** Subscribes to new todo lists for the run (its plan changed by the user); the listener answers
   * whether it took the list. Absent: nobody sets one. */
  onTodosSet?(listener: (todos: TodoItem[]) => boolean): () => void;
  /** Present when the run has a file checkpoint still to take (a backend with `checkpointsOnChange`):
   * the backend awaits it before anything in the run may change files. Later calls wait for the
   * first; it never rejects (a failure is told to the user as a notice). `toolUseId`: the call
   * about to run, whose end the runner then compares the workspace with the checkpoint at (absent
   * for a hook's command). */
  beforeChanges?: (toolUseId?: string) => Promise<void>;
  /** Variables laid over the environment of the processes a tool call starts, by the call's id
   * (telemetry's TRACEPARENT, when traces are on). A backend whose tools it does not run ignores it. */
  toolEnv?: (toolUseId: string) => Readonly<Record<string, string>> | undefined;
};

/** What a direct tool call works with: a run's context without anyone to steer, configure or ask. */
export type ToolCallContext = Pick<BackendContext, "signal" | "emit" | "workspace" | "stateDir" | "toolEnv"> & { toolUseId: string };

export type SteerInbox = {
  /** Takes every message waiting now (possibly none). */
  take(): string[];
  /** Calls `listener` for each message as it arrives; returns the unsubscribe function. */
  subscribe(listener: (message: string) => void): () => void;
};

/** How a run ended. A backend reports failures here instead of throwing; a throw is still caught
 * and reported as a failure with the thrown message. */
export type RunOutcome =
  | ({
      ok: true;
      result: string;
      usage: Usage;
      transcript: TranscriptMessage[];
      sessionId?: string;
      turns?: Usage[];
      model?: string;
      /** The answer that matched the run's output schema, when it had one. */
      structuredOutput?: Record<string, unknown>;
      /** What the conversation has spent, this run included (RunnerQuery.spentBefore). */
      spent?: ConversationSpent;
    } & RunAccounts)
  | ({
      ok: false;
      message: string;
      /** Why, when it is one of these: the run reached its maximum number of turns or its budget,
       * was cancelled, or its model missed the output schema too often. */
      reason?: "max_turns" | "max_budget" | "cancelled" | "structured_output";
      /** The model request failure that ended the run, when one did. */
      modelFailure?: ModelFailure;
      transcript?: TranscriptMessage[];
      sessionId?: string;
      usage?: Usage;
      /** Usage of each model call made, as on success. */
      turns?: Usage[];
      spent?: ConversationSpent;
    } & RunAccounts);

/** What a run's model calls cost it, when the backend knows: `modelUsage`, every call it paid for
 * (sub-agents' too) summed by model; `apiMs`, the milliseconds spent waiting for them. */
export type RunAccounts = { modelUsage?: Record<string, Usage>; apiMs?: number };

export type Backend = {
  name: string;
  run(query: RunnerQuery, ctx: BackendContext): Promise<RunOutcome>;
  /** True: the backend calls ctx.beforeChanges before anything in a run may change files, and the
   * runner snapshots the workspace there, not before the run: a run that only reads and answers
   * takes no snapshot (a rewind to it restores the next one taken). Absent: before every run. */
  checkpointsOnChange?: boolean;
  /** True: the backend moves running Bash calls to the background (BackendContext.onBackground),
   * each listening from when its checks begin; a request for a call announced (tool.started) and
   * not yet listening is held by the runner until it does. */
  movesToBackground?: boolean;
  /** Restores the workspace's files to how they were before the run that answered `userMessageId`
   * (dryRun: only reports). Absent: the backend keeps no checkpoints. */
  rewind?(request: { userMessageId: string; dryRun: boolean; workspace: string; stateDir: string }): Promise<RewindResult | undefined>;
  /** Loads what a run in `ctx.workspace` would and checks a direct tool call against it (its tool
   * known, its input valid); its `run()` then makes the call, emitting tool.started, tool.output
   * and tool.completed through `ctx.emit` (see RunnerToolCall). Undefined: the backend runs no tool
   * by itself. */
  prepareTool?(call: RunnerToolCall, ctx: ToolCallContext): Promise<PreparedInvocation | undefined>;
  /** Starts the MCP servers a run in `ctx.workspace` would start, asks them what they offer, pings
   * them and stops them (see RunnerMcpProbe); rejects when `ctx.signal` fires. Undefined (or
   * resolving to undefined): the backend starts no MCP server itself. */
  probeMcp?(probe: RunnerMcpProbe, ctx: Pick<BackendContext, "signal" | "workspace">): Promise<McpProbeOutcome | undefined>;
  /** The conversation's background shells, which outlive its runs: listed, watched and killed
   * between runs as well. Absent, or undefined: the backend keeps none (or none yet: no run). */
  shells?(): ConversationShells | undefined;
  /** Releases what the backend keeps between runs (processes, servers), ending the conversation it
   * holds for `reason` (its SessionEnd hooks'; default "other"); called when the runner stops or
   * its workspace is closed. */
  dispose?(reason?: SessionEndReason): Promise<void>;
};

/** A context for a run nobody can steer, configure or approve (headless runs and tests). */
export function headlessContext(base: { signal: AbortSignal; emit: (event: AgentEvent) => void; workspace: string; stateDir?: string }): BackendContext {
  return {
    ...base,
    stateDir: base.stateDir ?? `${base.workspace.replace(/\/+$/, "")}.harness-state`,
    steering: { take: () => [], subscribe: () => () => {} },
    onConfigure: () => () => {},
  };
}
