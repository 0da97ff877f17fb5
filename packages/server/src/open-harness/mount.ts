// The Open Harness API's core under /v1 (the spec's base_url ends in /v1): the registry (this server's
// own harness, and those registered, whose other operations are served elsewhere), its sessions, and
// executions (a prompt run in a session) streamed as SSE.
// Webhooks and the event feed are told of executions' starts and ends, and of the events recorded in
// the event store (sessions, skills, hooks, failed runs). The conformance suite (conformance/) runs
// against these routes over loopback. An operation of the spec not implemented
// answers 501 naming its capability (not-implemented.ts); every failure takes the spec's ErrorResponse shape. Routes are in
// routes-*.ts, what they share in common.ts.
import type { Hono } from "hono";
import { artifactsFrom, artifactsOf } from "./artifacts.ts";
import { H, handle, harnessOf, PREFIX, type OpenHarness } from "./common.ts";
import { errorBody } from "./errors.ts";
import { createExecutions } from "./executions.ts";
import { HARNESS_ID } from "./manifest.ts";
import { unimplementedCapability } from "./not-implemented.ts";
import { mountAgentRoutes } from "./routes-agents.ts";
import { mountAgentWriteRoutes } from "./routes-agents-write.ts";
import { mountMemoryRoutes } from "./routes-memory.ts";
import { mountMemoryWriteRoutes } from "./routes-memory-write.ts";
import { mountMemoryTransferRoutes } from "./routes-memory-transfer.ts";
import { mountMemoryArchiveRoutes } from "./routes-memory-archive.ts";
import { mountExecutionRoutes } from "./routes-executions.ts";
import { mountFileRoutes } from "./routes-files.ts";
import { mountHookRoutes } from "./routes-hooks.ts";
import { mountHookWriteRoutes } from "./routes-hooks-write.ts";
import { mountMcpRoutes } from "./routes-mcp.ts";
import { mountMcpWriteRoutes } from "./routes-mcp-write.ts";
import { mountSkillRoutes } from "./routes-skills.ts";
import { mountSkillWriteRoutes } from "./routes-skills-write.ts";
import { mountSkillVersionRoutes } from "./routes-skill-versions.ts";
import { mountSkillDiscoverRoutes } from "./routes-skill-discover.ts";
import { mountPlanRoutes } from "./routes-plan.ts";
import { mountPlanWriteRoutes } from "./routes-plan-write.ts";
import { mountHarnessRoutes } from "./routes-harnesses.ts";
import { mountSessionRoutes } from "./routes-sessions.ts";
import { mountResumeForkRoutes } from "./routes-resume-fork.ts";
import { mountWebhookRoutes } from "./routes-webhooks.ts";
import { mountToolRoutes } from "./routes-tools.ts";
import { mountToolWriteRoutes } from "./routes-tools-write.ts";
import { mountToolInvokeRoutes } from "./routes-tool-invoke.ts";
import { toolInvoker } from "./tool-invoke.ts";
import { createSpawnedSubagents } from "./spawned-subagents.ts";
import { mountSubagentRoutes } from "./routes-subagents.ts";
import { mountSubagentDelegateRoutes } from "./routes-subagents-delegate.ts";
import { mcpProber } from "./mcp-probe.ts";
import { mountEventRoutes } from "./routes-events.ts";
import { mountDiagnosticsRoutes, type ServerFigures } from "./routes-diagnostics.ts";
import { mountLogRoutes } from "./routes-logs.ts";
import { createLogBuffer, type LogBuffer } from "../log/buffer.ts";
import { createEventFeed } from "./event-feed.ts";
import { createEventStore, type EventStore } from "./event-store.ts";
import { createDeliverer, resumeDeliveries } from "./webhook-delivery.ts";
import { createWebhookNotifier } from "./webhooks.ts";
import type { SessionRegistry } from "../registry.ts";
import type { WebSocketChannel } from "../websocket-channel.ts";
import { sessionsConnectChannel } from "./session-connect.ts";
import type { ExecutionStore } from "../sqlite/executions.ts";
import type { WebhookStore } from "../sqlite/webhooks.ts";
import type { WebhookOutbox } from "../sqlite/webhook-outbox.ts";
import type { McpApprovalStore } from "../sqlite/mcp-approvals.ts";
import type { RegisteredToolStore } from "../sqlite/registered-tools.ts";
import type { ConformanceRunStore } from "../sqlite/conformance-runs.ts";
import type { RegisteredHarnessStore } from "../sqlite/registered-harnesses.ts";
import { mountConformanceRoutes } from "./conformance/routes.ts";

export type OpenHarnessOptions = {
  registry: SessionRegistry;
  version: string;
  /** The backend the runs use (HARNESS_BACKEND): builtin or claude-code. */
  backend: string;
  /** The server's environment, which gives the runs their model and its credentials (default:
   * this process's). */
  modelEnv?: Readonly<Record<string, string | undefined>>;
  /** What the server holds and runs now, for the diagnostics. */
  figures: () => ServerFigures;
  /** Where executions are kept past their run and the server's life. */
  executionStore: ExecutionStore;
  /** Where webhooks are kept, and their deliveries not yet done; whether they may name private
   * addresses (and loopback over http); how long the first retry of a failed delivery waits. */
  webhooks: { store: WebhookStore; outbox?: WebhookOutbox; allowPrivate: boolean; retryBaseMs: number };
  /** Where the .mcp.json servers each session's API caller connected are kept as approved. */
  mcpApprovals: McpApprovalStore;
  /** Where the tools programs registered for each session are kept. */
  registeredTools: RegisteredToolStore;
  /** Where the conformance runs are kept, the last ones of each user. */
  conformanceRuns: ConformanceRunStore;
  /** Where the harnesses registered besides this one are kept. */
  registeredHarnesses: RegisteredHarnessStore;
  /** This server's own address (loopback where it listens on every interface), which the conformance
   * suite sends its requests to; undefined before it listens. */
  selfUrl: () => string | undefined;
  /** The directory the runs of a session work in: its workspace, or the server's project. */
  workDirOf(userId: string, sessionId: string): string;
  /** The home directory the runs have (their user's skills and settings are there). */
  home: string;
  /** Where the versions of a session's skills are kept: in the server's data directory, removed with
   * the session and copied into its forks. */
  skillVersionsOf(userId: string, sessionId: string): string;
  /** Whether the user's session exists, its state left unread (the sessions API's own check). */
  sessionExists(userId: string, sessionId: string): Promise<boolean>;
  log?: (line: string) => void;
  /** Where the API adds its WebSocket channels (sessions.connect), which the server's WebSocket
   * endpoint answers. */
  webSocketChannels?: WebSocketChannel[];
  /** The server's most recent log records, for the logs routes (none kept when not given). */
  logs?: LogBuffer;
  /** Why the server is going away, or undefined while it serves (health says so). */
  stopping?: () => string | undefined;
  /** Where the feed's events other than executions' are recorded, by the API and the rest of the
   * server alike (a store of its own when not given). */
  events?: EventStore;
};

export function mountOpenHarness(app: Hono, options: OpenHarnessOptions): void {
  const log = options.log ?? (() => {});
  const { outbox } = options.webhooks;
  const deliverer = createDeliverer({ allowPrivate: options.webhooks.allowPrivate, retryBaseMs: options.webhooks.retryBaseMs, log, webhooks: options.webhooks.store, ...(outbox && { outbox }) });
  if (outbox) resumeDeliveries(outbox, options.webhooks.store, deliverer, log);
  // Called once an execution has ended, when `oh` is long made.
  const notifier = createWebhookNotifier(options.webhooks.store, deliverer, log, (execution) => artifactsOf(oh, execution));
  const feed = createEventFeed();
  const invokeTool = toolInvoker(options.registry);
  const events = options.events ?? createEventStore();
  events.subscribe((userId, event) => {
    notifier.notifyEvent(userId, event);
    feed.publishTo(userId, event);
    // Its sub-agents' tasks ended with it (its runner went): they are let go of too.
    if (event.type === "session.ended") oh.subagents.forgetSession(userId, String(event.data.session_id));
  });
  const oh: OpenHarness = {
    app,
    executions: createExecutions(
      options.registry,
      options.executionStore,
      log,
      (notice) => {
        notifier.notify(notice);
        const event = feed.publish(notice);
        events.sawExecutionEvent(notice.execution.userId, Date.parse(event.timestamp));
      },
      (execution, from, seen) => artifactsFrom(oh, execution, from, seen),
    ),
    events,
    workDirOf: options.workDirOf,
    home: options.home,
    skillVersionsOf: options.skillVersionsOf,
    sessionExists: options.sessionExists,
    version: options.version,
    backend: options.backend,
    modelEnv: options.modelEnv ?? process.env,
    startedAt: new Date().toISOString(),
    stopping: options.stopping ?? (() => undefined),
    invokeTool,
    subagents: createSpawnedSubagents(invokeTool),
    mcpApprovals: options.mcpApprovals,
    registeredTools: { store: options.registeredTools, allowPrivate: options.webhooks.allowPrivate },
    probeMcp: mcpProber(options.registry),
    harnesses: options.registeredHarnesses,
  };
  mountHarnessRoutes(oh);
  mountSessionRoutes(oh);
  mountResumeForkRoutes(oh);
  mountExecutionRoutes(oh);
  mountFileRoutes(oh);
  mountPlanRoutes(oh);
  mountPlanWriteRoutes(oh);
  mountMcpRoutes(oh);
  mountSkillWriteRoutes(oh);
  mountSkillVersionRoutes(oh);
  mountSkillDiscoverRoutes(oh);
  mountMcpWriteRoutes(oh);
  mountSkillRoutes(oh);
  mountHookRoutes(oh);
  mountHookWriteRoutes(oh);
  mountMemoryRoutes(oh);
  mountMemoryWriteRoutes(oh);
  mountMemoryTransferRoutes(oh);
  mountMemoryArchiveRoutes(oh);
  mountAgentRoutes(oh);
  mountAgentWriteRoutes(oh);
  mountWebhookRoutes(oh, options.webhooks);
  mountToolRoutes(oh);
  mountToolWriteRoutes(oh);
  mountToolInvokeRoutes(oh);
  mountSubagentRoutes(oh);
  mountSubagentDelegateRoutes(oh);
  mountEventRoutes(oh, feed);
  mountDiagnosticsRoutes(oh, options.figures, feed);
  mountLogRoutes(oh, options.logs ?? createLogBuffer());
  mountConformanceRoutes(oh, { store: options.conformanceRuns, selfUrl: options.selfUrl, log });
  if (options.webSocketChannels) {
    options.webSocketChannels.push(sessionsConnectChannel(oh));
    app.get(`${H}/sessions/:sessionId/connect`, handle((c) => {
      harnessOf(c);
      return c.json(errorBody("upgrade_required", "sessions.connect is a WebSocket: send the request as a WebSocket handshake", "sessions.connect"), 426);
    }));
  }
  app.all(`${PREFIX}/*`, handle((c) => {
    const path = new URL(c.req.url).pathname.slice(PREFIX.length);
    const named = /^\/harnesses\/([^/]+)/.exec(path)?.[1];
    if (named !== undefined && named !== HARNESS_ID && !oh.harnesses.get(named)) harnessOf(c, named);
    const capability = unimplementedCapability(c.req.method, path);
    if (capability) return c.json(errorBody("not_implemented", `${capability} is not implemented by this harness (see GET /v1/harnesses/${HARNESS_ID}/capabilities)`, capability), 501);
    return c.json(errorBody("not_found", `not found: ${c.req.method} ${PREFIX}${path} is no operation of the Open Harness API`), 404);
  }));
}
