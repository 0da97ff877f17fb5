// What outlives one run of a conversation: the tools' state (files read, background shells, todos),
// the MCP servers, and what the runs have spent. A long-lived host creates it once per conversation and passes it to every
// run, so that servers and shells are not restarted for each prompt.
import { randomUUID } from "node:crypto";
import { hideInDebugLog } from "@harness/llm/debug-log";
import { secretHiding, type SecretHiding } from "@harness/llm/hidden-secrets";
import type { ProviderOverrides } from "@harness/llm";
import type { GitSnapshot } from "../context/git-snapshot.ts";
import type { McpManager } from "../mcp/manager.ts";
import type { LspServers } from "../lsp/servers.ts";
import type { TranscriptFile } from "../hooks/transcript-file.ts";
import type { AsyncHookReport, HookEventName } from "../hooks/types.ts";
import type { ConversationSpent, SessionEndReason, Usage } from "@harness/protocol";
import { emptyUsage } from "../loop/usage.ts";
import { createToolState, disposeToolState, type ToolState, type ToolStateOptions } from "../tools/state.ts";

/** The shells between runs (a host's runner reaches them through these resources' entry). */
export { conversationShells, type ConversationShells } from "./conversation-shells.ts";

export type AgentResources = {
  readonly toolState: ToolState;
  /** The `session_id` hooks see when the run names none. */
  readonly sessionId: string;
  /** Runs the SessionEnd hooks (when a run loaded any) telling them `reason` (default "other"),
   * closes the MCP servers and kills the background shells. Idempotent (the first call's reason
   * is the one told); later runs with these resources start nothing new in the background. */
  dispose(reason?: SessionEndReason): Promise<void>;
};

export type AgentResourcesOptions = ToolStateOptions & {
  /** Use this tool state instead of a new one; it is disposed with the resources. */
  toolState?: ToolState;
  sessionId?: string;
};

export type NoticeLevel = "info" | "warning" | "error";
export type NoticeSink = (level: NoticeLevel, message: string) => void;

/** The parts of the resources only the harness uses. */
export type ResourceInternals = {
  /** MCP managers by the key of their configuration; at most one is kept. */
  mcp: Map<string, Promise<McpManager>>;
  /** The plugins' language servers, for the configuration `key`; at most one set is kept. */
  lsp?: { key: string; servers: LspServers };
  /** The runs currently listening for MCP notices (a server dying between runs reaches none). */
  listeners: Set<NoticeSink>;
  /** SessionStart has run: it runs once per resources. */
  sessionStarted: boolean;
  /** Runs the SessionEnd hooks of the latest run's configuration. */
  sessionEnd?: (reason: SessionEndReason) => Promise<void>;
  /** The git snapshot of each working directory, taken once per conversation as in Claude Code, so
   * the environment block (and the cached prompt prefix) stays the same from run to run. */
  git: Map<string, Promise<GitSnapshot>>;
  disposed: boolean;
  /** Aborted on dispose: MCP servers still starting are given up on at once, not awaited (a server
   * that never answers held a cancelled run for its whole MCP_TIMEOUT). */
  lifetime: AbortController;
  /** The conversation written for hooks (transcript_path), once a hook has run; removed on dispose. */
  transcript?: TranscriptFile;
  /** What async hooks said after they finished: context the next model request carries, and
   * messages for the user that no run was there to show. */
  hookReports: { context: { event: HookEventName; text: string }[]; messages: string[] };
  /** The `once` hooks that have run in this conversation, by identity. */
  onceHooks: Set<string>;
  /** What the conversation's runs have spent, added as each run ends (see /cost). */
  spent: ConversationSpend;
  /** A run has used these resources: what it was told the conversation spent before is counted. */
  spentSeeded: boolean;
  /** What the conversation's runs show (their notices and reports) hides, as a log does: the
   * secrets they learn (knowSecrets) and those in a shape that says so. */
  shown: SecretHiding;
};

/** The usage and cost of a conversation's runs (their sub-agents' included), their model calls and
 * the time spent waiting for them, and when the conversation started in this process. */
export type ConversationSpend = { usage: Usage; calls: number; apiMs: number; startedAt: number };

const internals = new WeakMap<AgentResources, ResourceInternals>();

export function createAgentResources(options: AgentResourcesOptions = {}): AgentResources {
  const { toolState: given, sessionId, ...stateOptions } = options;
  const toolState = given ?? createToolState(stateOptions);
  const inner: ResourceInternals = {
    mcp: new Map(),
    listeners: new Set(),
    sessionStarted: false,
    git: new Map(),
    disposed: false,
    lifetime: new AbortController(),
    hookReports: { context: [], messages: [] },
    onceHooks: new Set(),
    spent: { usage: emptyUsage(), calls: 0, apiMs: 0, startedAt: Date.now() },
    spentSeeded: false,
    shown: secretHiding(),
  };
  let disposing: Promise<void> | undefined;
  const resources: AgentResources = {
    toolState,
    sessionId: sessionId ?? randomUUID(),
    dispose(reason = "other") {
      disposing ??= disposeAll(inner, toolState, reason);
      return disposing;
    },
  };
  internals.set(resources, inner);
  return resources;
}

/** The first run on `resources` starts the conversation's totals from what it spent before (in an
 * earlier process); later runs count on from what these resources counted. */
export function seedSpent(resources: AgentResources, before: ConversationSpent | undefined): void {
  const inner = resourceInternals(resources);
  if (inner.spentSeeded) return;
  inner.spentSeeded = true;
  if (!before) return;
  const { spent } = inner;
  spent.usage = { ...before.usage };
  spent.calls = before.calls;
  spent.apiMs = before.apiMs;
  // The wall time goes on from where it was, not from the conversation's first start.
  spent.startedAt = Date.now() - before.wallMs;
}

/** The conversation's totals so far, as stored with it. */
export function spentSoFar(resources: AgentResources, now = Date.now()): ConversationSpent {
  const { usage, calls, apiMs, startedAt } = resourceInternals(resources).spent;
  return { usage: { ...usage }, calls, apiMs, wallMs: Math.max(0, now - startedAt) };
}

export function resourceInternals(resources: AgentResources): ResourceInternals {
  const inner = internals.get(resources);
  if (!inner) throw new Error("These agent resources were not made by createAgentResources().");
  return inner;
}

/** The MCP manager for the configuration `key`, started with `start` unless one is running for the
 * same key. A manager for another configuration is closed: the project's servers changed. */
export function mcpManagerFor(
  resources: AgentResources,
  key: string,
  start: (onNotice: NoticeSink, signal: AbortSignal) => Promise<McpManager>,
): Promise<McpManager> {
  const inner = resourceInternals(resources);
  const running = inner.mcp.get(key);
  if (running) return running;
  for (const [other, manager] of inner.mcp) {
    inner.mcp.delete(other);
    void manager.then((m) => m.close());
  }
  const started = start((level, message) => {
    for (const listener of inner.listeners) listener(level, message);
  }, inner.lifetime.signal);
  inner.mcp.set(key, started);
  return started;
}

/** The language servers for the configuration `key`, made with `make` unless the conversation has
 * them already; those of another configuration are stopped. None once the resources are disposed. */
export function lspServersFor(resources: AgentResources, key: string, make: () => LspServers): LspServers | undefined {
  const inner = resourceInternals(resources);
  if (inner.disposed) return undefined;
  if (inner.lsp?.key === key) return inner.lsp.servers;
  void inner.lsp?.servers.close();
  inner.lsp = { key, servers: make() };
  return inner.lsp.servers;
}

/** Learns secrets known by value as a run finds them (its environment's, its settings' env, an MCP
 * server's env and headers): what the conversation's runs show hides them from then on, and so
 * does the debug log. */
export function knowSecrets(resources: AgentResources, values: Iterable<string | undefined>): void {
  const known = [...values];
  resourceInternals(resources).shown.know(known);
  hideInDebugLog(known);
}

/** The credentials handed to a run for its model providers (RunAgentOptions.providerOptions: a
 * server's, kept from its runners' environment): secrets it knows by value, as its environment's. */
export function providerSecrets(overrides: ProviderOverrides | undefined): (string | undefined)[] {
  const anthropic = overrides?.anthropic;
  const bedrock = anthropic?.bedrockAuth;
  const aws = bedrock && "keys" in bedrock ? [bedrock.keys.secretAccessKey, bedrock.keys.sessionToken] : [bedrock?.bearer];
  return [anthropic?.apiKey, anthropic?.authToken, anthropic?.googleAccessToken, ...aws, overrides?.openai?.apiKey, overrides?.ollama?.apiKey];
}

/** `text` as a run may show it (a notice, a report): see ResourceInternals.shown. */
export function shownText(resources: AgentResources, text: string): string {
  return resourceInternals(resources).shown.hide(text);
}

/** An async hook's report: its messages to the runs listening now (else kept for the next run's
 * start), its context kept for the next model request (see takeHookContext). */
export function deliverHookReport(resources: AgentResources, report: AsyncHookReport): void {
  const inner = resourceInternals(resources);
  if (inner.disposed) return;
  if (report.context !== undefined) inner.hookReports.context.push({ event: report.event, text: report.context });
  if (inner.listeners.size === 0) inner.hookReports.messages.push(...report.userMessages);
  else for (const message of report.userMessages) for (const listener of inner.listeners) listener("warning", message);
}

/** The context async hooks have left since the last model request, taken. */
export function takeHookContext(resources: AgentResources): { event: HookEventName; text: string }[] {
  return resourceInternals(resources).hookReports.context.splice(0);
}

/** The async hooks' messages no run was there to show, taken. */
export function takeHookMessages(resources: AgentResources): string[] {
  return resourceInternals(resources).hookReports.messages.splice(0);
}

async function disposeAll(inner: ResourceInternals, toolState: ToolState, reason: SessionEndReason): Promise<void> {
  inner.disposed = true;
  inner.lifetime.abort();
  const sessionEnd = inner.sessionStarted ? inner.sessionEnd : undefined;
  inner.sessionEnd = undefined;
  if (sessionEnd) await sessionEnd(reason).catch(() => {});
  inner.transcript?.remove();
  const managers = [...inner.mcp.values()];
  inner.mcp.clear();
  const lsp = inner.lsp?.servers;
  inner.lsp = undefined;
  inner.listeners.clear();
  await Promise.all([...managers.map((m) => m.then((manager) => manager.close()).catch(() => {})), lsp?.close(), disposeToolState(toolState)]);
}
