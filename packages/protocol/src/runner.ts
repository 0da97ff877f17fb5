// RunnerProtocol: what a Session and a Runner say to each other over HTTP + SSE.
//
//   POST /query   body RunnerQuery → text/event-stream of RunnerEvent, each with `id:` (its seq)
//   GET  /health  → RunnerHealth
//   Control of the run in flight (see runner-control.ts): approve, deny, steer, cancel, re-attach
//   with Last-Event-ID; rewind of the workspace to a checkpoint.
//
// Every event in one run shares one envelope ({type, seq, ...payload}); `seq` counts from 1 within
// the run and is also the SSE `id:`. The first event is run.started and the last is run.completed or
// run.error. Closing the request cancels the run.
import { z } from "zod";
import { RegisteredToolsSchema } from "./registered-tools.ts";
import { idOfAtMost, MAX_ID_CHARS, RunnerPermissionModeSchema } from "./runner-control.ts";
import { wellFormedText } from "./well-formed.ts";
import { BackgroundShellSchema, ChangedFilesSchema, ConversationSpentSchema, MAX_TURNS_LIMIT, RunAvailableSchema, UsageSchema } from "./wire.ts";
import { MAX_LISTED_SHELLS } from "./shells-text.ts";

/** A message of the model conversation, in Anthropic Messages form. The session keeps the
 * transcript and sends it back as `history`; the runner may keep the last one it returned too (see
 * `historyId`), so that a long conversation does not travel whole with every run. */
export const TranscriptMessageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
  /** Harness bookkeeping, never sent to a model. A "compact-summary" message starts the part of the
   * transcript the model still sees; the messages before it are kept for the record only. */
  meta: z.object({ kind: z.literal("compact-summary"), dropped: z.number().int().nonnegative() }).optional(),
});
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;

/** Whether `transcript` begins with the very messages of `history` (the same objects: messages
 * rebuilt from them may differ). The runner asks it of a run's transcript, the session's store of
 * the transcript it holds. */
export function extendsHistory<T>(transcript: readonly T[], history: readonly T[]): boolean {
  if (transcript.length < history.length) return false;
  for (let i = 0; i < history.length; i++) if (transcript[i] !== history[i]) return false;
  return true;
}

/** The totals a query gives a runner to count on from: sums of counts and amounts, none below
 * zero, tokens whole. (A run's end reports them with the looser ConversationSpentSchema: what the
 * model service said it used, as it said it; the session sends on only totals this schema takes.) */
export const SpentBeforeSchema = ConversationSpentSchema.extend({
  usage: z.object({
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    cacheReadTokens: z.number().int().nonnegative().optional(),
    cacheWriteTokens: z.number().int().nonnegative().optional(),
    webSearchRequests: z.number().int().nonnegative().optional(),
    costUsd: z.number().nonnegative().optional(),
    unpricedCalls: z.number().int().nonnegative().optional(),
    unreportedCalls: z.number().int().nonnegative().optional(),
  }),
});

/** A credential that travels in a query: never empty (a field left out is how "none" is said). */
const secret = z.string().min(1, "must not be empty (leave the field out instead)");

const absolutePath = z.string().refine((path) => path.startsWith("/"), "must be an absolute path");

/** What the host that starts every run gives each of them on top of the query (claude's
 * --append-system-prompt, --allowedTools, --disallowedTools, --add-dir, --mcp-config, --settings,
 * --agents, --plugin-dir…, as `harness run` takes them): checked by that host before it sends them,
 * so that here only their outline is. The builtin backend's. */
export const RunnerRunOptionsSchema = z
  .object({
    /** Added after the system prompt. */
    appendSystemPrompt: z.string().optional(),
    /** Permission rules on top of the settings', in the settings' syntax. */
    rules: z.object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }).strict().optional(),
    /** Directories besides the working directory that the file tools reach. */
    additionalDirectories: z.array(absolutePath).optional(),
    /** MCP servers: each group the `mcpServers` object of one `.mcp.json`-shaped value, and where it
     * came from (a file, or the flag for JSON given inline). */
    mcpConfig: z.array(z.object({ file: z.string(), servers: z.record(z.string(), z.unknown()) }).strict()).optional(),
    /** Only the servers of `mcpConfig`. */
    strictMcpConfig: z.boolean().optional(),
    /** Settings above the local ones, trusted as the user's own; `file` names them in messages. */
    flagSettings: z.object({ file: z.string(), settings: z.unknown() }).strict().optional(),
    settingSources: z.array(z.enum(["user", "project", "local"])).optional(),
    /** The built-in tools offered, by name; default all. */
    builtinTools: z.array(z.string()).optional(),
    /** Sub-agents over every agent file of the same name, as the host parsed them. */
    agents: z.array(z.looseObject({ name: z.string().min(1), description: z.string(), systemPrompt: z.string(), source: z.literal("cli") })).optional(),
    /** Plugin directories loaded besides the installed plugins. */
    pluginDirs: z.array(absolutePath).optional(),
  })
  .strict();
export type RunnerRunOptions = z.infer<typeof RunnerRunOptionsSchema>;

/** The most approvals of `.mcp.json` servers a session's host may give. */
export const MAX_MCP_APPROVALS = 1000;

/** The host's approvals of `.mcp.json` servers that a query or a direct call carries. */
export const McpApprovalsSchema = z
  .array(z.strictObject({ name: z.string().min(1).max(256), entry: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in hex") }))
  .max(MAX_MCP_APPROVALS);

/** RunnerQuery's fields, before the checks across them (see RunnerQuerySchema); other bodies that
 * carry some of them (a direct tool call's) pick them from here. */
export const RunnerQueryFields = z
  .object({
    prompt: wellFormedText().min(1),
    history: z.array(TranscriptMessageSchema).optional(),
    /** Instead of `history`: the `transcriptId` of a run's last event, naming the transcript that run
     * left, which the runner kept. A runner that no longer keeps it answers 412
     * (HISTORY_GONE_STATUS), and the query is sent again with `history`. */
    historyId: z.string().min(1).max(128).optional(),
    /** True: run.completed and run.error carry in `transcript` only the messages after the history,
     * with `transcriptFrom` (the history's length), when the run's transcript begins with the history
     * unchanged; else the whole transcript. Events read again through GET /runs/:id/events always
     * carry it whole. */
    transcriptAdded: z.boolean().optional(),
    /** What the conversation spent before this run (the `spent` of its last run's end, which the
     * session keeps): a runner that has not counted the conversation's runs itself (a new process,
     * or a workspace opened again) goes on from it in /cost and in the `spent` of the run's end.
     * Optional: without it such a runner counts from zero. */
    spentBefore: SpentBeforeSchema.optional(),
    model: z.string().min(1).optional(),
    systemPrompt: z.string().optional(),
    maxTurns: z.number().int().positive().max(MAX_TURNS_LIMIT).optional(),
    /** Working directory of the run; defaults to the runner's workspace. */
    cwd: z.string().optional(),
    /** Credentials for this run only; never written to disk by the runner. */
    anthropicApiKey: z.string().optional(),
    /** A bearer token in place of the key (ANTHROPIC_AUTH_TOKEN), likewise. */
    anthropicAuthToken: z.string().optional(),
    /** For openai/… models (OPENAI_API_KEY), likewise. */
    openaiApiKey: z.string().optional(),
    /** For Claude on Amazon Bedrock, likewise: AWS keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
     * AWS_SESSION_TOKEN), or a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK). */
    awsAccessKeyId: secret.optional(),
    awsSecretAccessKey: secret.optional(),
    awsSessionToken: secret.optional(),
    awsBearerTokenBedrock: secret.optional(),
    /** For Claude on Vertex AI, likewise: a Google access token, used instead of the runner's own
     * Application Default Credentials. */
    googleAccessToken: secret.optional(),
    /** Where the Google credentials that `googleAccessToken` was minted from are, for a backend that
     * mints its own (Claude Code, which takes no ready token); none when it came from the metadata
     * server. A path, not a secret. */
    googleCredentialsFile: z.string().refine((path) => path.startsWith("/"), "googleCredentialsFile must be an absolute path").optional(),
    /** Claude Code's permission modes; the wire's "fullAuto" arrives here as "bypassPermissions". */
    permissionMode: RunnerPermissionModeSchema.optional(),
    effort: z.enum(["low", "medium", "high", "max"]).optional(),
    /** When true, a tool call that needs approval pauses the run with approval.requested until the
     * session answers through the control endpoints; when false (headless), "ask" is denied. */
    interactive: z.boolean().optional(),
    /** The session's id of the user message this run answers: file checkpoints taken during the run
     * are filed under it, so that a later rewind can restore the workspace to before it. */
    userMessageId: z.string().min(1, "must not be empty").max(200, "must be at most 200 characters").optional(),
    /** Which agent backend runs the query (default: the runner's default, HARNESS_BACKEND). */
    backend: z.enum(["builtin", "claude-code"]).optional(),
    /** Backend session to continue (claude-code: its session id, from an earlier run.completed). */
    resumeSessionId: idOfAtMost(MAX_ID_CHARS)
      .regex(/^[\w.:-]+$/, "resumeSessionId must be letters, digits or . _ : -")
      .optional(),
    /** The caller's id for this run (the runner makes one when absent). A caller that stores it before
     * it sends the query can re-attach to the run even if it never saw run.started. */
    requestId: z
      .string()
      .regex(/^[\w.:-]{1,128}$/, "requestId must be 1 to 128 letters, digits or . _ : -")
      .optional(),
    /** What every run of the session's host carries (see RunnerRunOptionsSchema). */
    runOptions: RunnerRunOptionsSchema.optional(),
    /** The project's `.mcp.json` servers the session's host approved (a server's API, whose caller
     * connected them), each with the fingerprint of its entry as approved (the SHA-256 of its
     * canonical JSON, @harness/agent's mcpEntryFingerprint): it starts as one the user's settings
     * approve, while its entry is unchanged. The builtin backend's. */
    mcpApprovals: McpApprovalsSchema.optional(),
    /** Tools a program registered for the session (registered-tools.ts): offered to the model
     * besides the agent's own, each call POSTed to its URL. The builtin backend's. */
    registeredTools: RegisteredToolsSchema.optional(),
    /** Whose run this is, as the runner's debug log names each line the run writes (a server's
     * "user/session"): runners shared by several sessions write one file. Never a prompt. */
    debugLabel: z
      .string()
      .regex(/^[\w.:/-]{1,257}$/, "debugLabel must be 1 to 257 letters, digits or . _ : / -")
      .optional(),
    /** Whose run this is, for the runner's OpenTelemetry export (the server's user and session):
     * stamped on what it reports, as user.id and session.id, when telemetry is on. */
    telemetry: z.object({ userId: idOfAtMost(MAX_ID_CHARS).min(1), sessionId: idOfAtMost(MAX_ID_CHARS).min(1) }).strict().optional(),
  })
  // Closed: a field this runner does not know (a typo such as `maxTurn`) is refused rather than
  // dropped, which would run the query without it; a server starts runners of its own version.
  .strict();

/** The AWS credentials of a body (a query's, a tool call's) come as the environment has them: keys
 * in pairs, a session token only with them. */
export function withAwsPairs<T extends z.ZodType<{ awsAccessKeyId?: string; awsSecretAccessKey?: string; awsSessionToken?: string }>>(schema: T): T {
  return schema
    .refine((body) => (body.awsAccessKeyId === undefined) === (body.awsSecretAccessKey === undefined), {
      message: "send awsAccessKeyId and awsSecretAccessKey together",
      path: ["awsSecretAccessKey"],
    })
    .refine((body) => body.awsSessionToken === undefined || body.awsAccessKeyId !== undefined, {
      message: "awsSessionToken goes with awsAccessKeyId and awsSecretAccessKey",
      path: ["awsSessionToken"],
    });
}

export const RunnerQuerySchema = withAwsPairs(
  RunnerQueryFields.refine((query) => query.history === undefined || query.historyId === undefined, {
    message: "send history or historyId, not both",
    path: ["historyId"],
  }),
);
export type RunnerQuery = z.infer<typeof RunnerQuerySchema>;

/** `version` changes whenever the runner's code does (runners before it have none): a server sends
 * new queries only to a runner of its own version (their bodies and events may differ). */
export const RunnerHealthSchema = z.object({ ok: z.boolean(), busy: z.boolean(), hasAnthropicKey: z.boolean(), version: z.string().max(128).optional() });
export type RunnerHealth = z.infer<typeof RunnerHealthSchema>;

/** POST /query's status when the query's `historyId` names a transcript the runner does not keep
 * (it restarted, or let it go to stay within its memory budget). */
export const HISTORY_GONE_STATUS = 412;

/** How a run's last event hands back the conversation (see RunnerQuery `transcriptAdded`). */
const transcriptFields = {
  /** The conversation after this run (whole, or from `transcriptFrom` on), to send back as
   * `history` next time. */
  transcript: z.array(TranscriptMessageSchema).optional(),
  /** Set when `transcript` holds only the messages from this index on: the ones before it are the
   * query's history. */
  transcriptFrom: z.number().int().nonnegative().optional(),
  /** The id under which the runner keeps this transcript, for the next query's `historyId`. */
  transcriptId: z.string().optional(),
};

const envelope = { seq: z.number().int().positive() };

/** A model request that failed and is tried again, for what reads it (telemetry) rather than the
 * notice's words: `attempt`, the number of the attempt that failed (1 for the first request);
 * `maxAttempts`, how many it may make in all, when known; `status`, its HTTP status when it had
 * one; `error`, what went wrong; `delayMs`, the wait before the next attempt. */
export const ModelRetrySchema = z.object({
  attempt: z.number().int().positive(),
  maxAttempts: z.number().int().positive().optional(),
  status: z.number().int().min(100).max(599).optional(),
  error: z.string(),
  delayMs: z.number().nonnegative().optional(),
});
export type ModelRetry = z.infer<typeof ModelRetrySchema>;
/** The model request failure that ended a run (no attempt left, or one not worth trying again):
 * its HTTP status when it had one, what went wrong, and the number of the attempt that failed
 * when known. */
export type ModelFailure = { status?: number; error: string; attempt?: number };
/** Set on events that come from a sub-agent: its own id, and the Task tool call that started it, so
 * a UI can nest them. Absent for the main agent. */
const agentFields = { agentId: z.string().optional(), parentToolUseId: z.string().optional() };

export const RunnerEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("run.started"), ...envelope, requestId: z.string() }),
  z.object({ type: z.literal("assistant.delta"), ...envelope, ...agentFields, text: z.string() }),
  /** The model's thinking (extended thinking, or an OpenAI-compatible model's reasoning) as it
   * streams, before the reply text it leads to. For people to follow; it is never reply text. A
   * redacted thinking block (encrypted: no text) sends nothing. */
  z.object({ type: z.literal("assistant.thinking"), ...envelope, ...agentFields, text: z.string() }),
  /** The reply's last `text` (sent as deltas) is withdrawn: the model's stream broke off and the
   * backend asked for the reply again, which comes as new deltas. With `thinking`, the `text`
   * withdrawn is the thinking last sent (as assistant.thinking), not reply text. */
  z.object({ type: z.literal("assistant.retracted"), ...envelope, ...agentFields, text: z.string(), thinking: z.literal(true).optional() }),
  z.object({
    type: z.literal("tool.started"),
    ...envelope,
    ...agentFields,
    toolName: z.string(),
    toolUseId: z.string(),
    input: z.record(z.string(), z.unknown()).optional(),
  }),
  /** Output a running tool call produced since its last tool.output (a Bash command's, as it
   * prints), for people to follow: at most one every ~100 ms per call. `replace`: `text` is the
   * output so far in place of everything sent before, its middle cut once it grew too long to
   * stream whole. tool.completed then gives the call's result, which may differ (cut otherwise,
   * with how the command ended). */
  z.object({
    type: z.literal("tool.output"),
    ...envelope,
    ...agentFields,
    toolUseId: z.string(),
    text: z.string(),
    replace: z.boolean().optional(),
  }),
  z.object({
    type: z.literal("tool.completed"),
    ...envelope,
    ...agentFields,
    toolUseId: z.string(),
    output: z.string(),
    isError: z.boolean(),
    /** The call did not run: the permission rules, the mode, a hook or the user refused it. */
    denied: z.boolean().optional(),
    /** With `denied`: the call would have asked for approval, and nobody could be asked (a direct
     * tool call, see runner-tools.ts). */
    needsApproval: z.literal(true).optional(),
  }),
  z.object({
    type: z.literal("run.completed"),
    ...envelope,
    result: z.string().optional(),
    sessionId: z.string().optional(),
    usage: UsageSchema.optional(),
    ...transcriptFields,
    /** Usage of every model call of the run, in order (run.completed.usage is their sum). */
    turns: z.array(UsageSchema).optional(),
    model: z.string().optional(),
    /** What the conversation has spent, this run included (for the next query's `spentBefore`). */
    spent: ConversationSpentSchema.optional(),
    /** Steer messages the run took but ended without passing to the model, in order (each also told
     * in a notice): the session sends them on as the next prompt, also one that re-attached to the
     * run after a restart and never heard of them. */
    unreadSteers: z.array(z.string()).optional(),
    /** With a file checkpoint taken for the run: the files it created or changed that are still
     * there at its end, whatever changed them (a tool, a shell command, a hook, a background
     * process). Absent when the run took no checkpoint (it only read, or git is missing). */
    changedFiles: ChangedFilesSchema.optional(),
  }),
  /** Files a call of the run created or changed (`toolUseId`, the main agent's or a sub-agent's),
   * seen by comparing the workspace with the run's file checkpoint after a call that may change
   * files ended: only the files not reported before in the run. Sent by backends that take their
   * checkpoint before the first change (builtin); others report at the run's end only. */
  z.object({ type: z.literal("files.changed"), ...envelope, ...agentFields, toolUseId: z.string().optional(), ...ChangedFilesSchema.shape }),
  /** A model call finished: what it used (priced when the price is known). One per call, sent as
   * it ends, the main agent's and each sub-agent's (with its `agentId`) alike, so that a session
   * shows figures that move while the run goes. The run's end still gives the run's figures, which
   * are final: the builtin loop's are the sum of its calls reported, Claude Code's its own count
   * (calls it reports no usage for, a sub-agent's output counts it tells late, and its prices before
   * a result has told them, may differ from the calls reported). `side`:
   * a call made beside the conversation (a hook's verdict, a web search): it costs, but is no
   * measure of the conversation's context. `callId`: the call's own id (the API's message id): a
   * call reported again under its id (its real counts, once the backend learns them) replaces what
   * was reported of it, and is counted once however often it is reported. */
  z.object({ type: z.literal("call.completed"), ...envelope, ...agentFields, side: z.literal(true).optional(), callId: idOfAtMost(MAX_ID_CHARS).min(1).optional(), usage: UsageSchema }),
  /** A tool call waits for the user's decision (interactive runs only). */
  z.object({
    type: z.literal("approval.requested"),
    ...envelope,
    ...agentFields,
    toolUseId: z.string(),
    toolName: z.string(),
    /** What the call will do, in words a person reads before deciding (e.g. the command). */
    description: z.string(),
    /** Why it asks, for the person deciding, when a PreToolUse hook (its reason) or an ask rule
     * made it ask; absent when it asks only because nothing allows it. */
    reason: z.string().optional(),
    input: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    type: z.literal("approval.resolved"),
    ...envelope,
    ...agentFields,
    toolUseId: z.string(),
    behavior: z.enum(["allow", "deny"]),
    reason: z.string().optional(),
  }),
  /** A steer message reached the model (at a turn boundary) as user content. */
  z.object({ type: z.literal("user.message"), ...envelope, ...agentFields, text: z.string(), steer: z.boolean().optional() }),
  /** Something the user should see that is not part of the conversation: a settings file with an
   * error, an MCP server that failed, a hook's message. */
  z.object({ type: z.literal("notice"), ...envelope, ...agentFields, level: z.enum(["info", "warning", "error"]), message: z.string(), retry: ModelRetrySchema.optional() }),
  /** The run changed its own permission mode: the user approved its plan, so it left plan mode (or
   * a mode configured while the plan waited is taken once it has). The new mode holds for the rest
   * of the run, and for the session's next runs. With `refused`, the run did not take the mode it was
   * asked for (at its start or configured since: the settings forbid bypassPermissions, or Claude
   * Code refused the switch) and goes on in `permissionMode`. */
  z.object({
    type: z.literal("mode.changed"),
    ...envelope,
    ...agentFields,
    permissionMode: RunnerPermissionModeSchema,
    refused: RunnerPermissionModeSchema.optional(),
  }),
  /** A hook the settings (or a plugin, a skill, an agent file) configure ran, as it ended: once
   * per hook run, never for the harness's own internal hooks. `hookEvent`: the event it ran for
   * (Claude Code's name: PreToolUse, Stop…); `matcher`: its group's matcher, when it has one;
   * `kind`: command, http, prompt or agent; `command`: its command, URL or prompt as messages name
   * it (an http hook's URL cut to its origin and first path part, secrets shown as ***); `outcome`:
   * success, error (it failed, timed out, or exited non-zero) or cancelled (the run was);
   * `exitCode`: a command's, when it exited on its own. */
  z.object({
    type: z.literal("hook.ran"),
    ...envelope,
    ...agentFields,
    hookEvent: z.string(),
    matcher: z.string().optional(),
    kind: z.enum(["command", "http", "prompt", "agent"]),
    command: z.string(),
    outcome: z.enum(["success", "error", "cancelled"]),
    durationMs: z.number().nonnegative(),
    exitCode: z.number().int().optional(),
  }),
  /** The conversation's background shells, all of them, oldest first: sent as a run starts when
   * there are any, and again whenever one starts, is moved to the background, ends or is killed
   * while the run goes on. The session keeps the last list as the state's `shells`. */
  z.object({ type: z.literal("shells.changed"), ...envelope, ...agentFields, shells: z.array(BackgroundShellSchema).max(MAX_LISTED_SHELLS) }),
  /** The run is set up (settings read, MCP servers started): what it works with. */
  z.object({ type: z.literal("run.ready"), ...envelope, ...agentFields, available: RunAvailableSchema }),
  z.object({
    type: z.literal("run.error"),
    ...envelope,
    message: z.string(),
    /** The backend's own session, when the run started one before it failed or was stopped (the
     * claude-code backend's): the next query resumes it, so that what was said is not lost. */
    sessionId: z.string().optional(),
    ...transcriptFields,
    /** What the model calls made before the run failed or was stopped cost (they are paid for). */
    usage: UsageSchema.optional(),
    spent: ConversationSpentSchema.optional(),
    /** As run.completed's: what the run created or changed before it failed or was stopped. */
    changedFiles: ChangedFilesSchema.optional(),
  }),
]);
export type RunnerEvent = z.infer<typeof RunnerEventSchema>;
export type RunnerEventType = RunnerEvent["type"];
/** The last event of a run. */
export type RunEndEvent = Extract<RunnerEvent, { type: "run.completed" | "run.error" }>;

/** Whether `event` ends its run. */
export function isRunEnd(event: RunnerEvent): event is RunEndEvent {
  return event.type === "run.completed" || event.type === "run.error";
}

/** A RunnerEvent before the runner has stamped its seq on it. */
export type RunnerEventPayload = RunnerEvent extends infer E ? (E extends { seq: number } ? Omit<E, "seq"> : never) : never;
/** Events an agent backend emits while it runs; the runner adds run.started / run.completed / run.error. */
export type AgentEvent = Exclude<RunnerEventPayload, { type: "run.started" | "run.completed" | "run.error" }>;

// The conversation's background shells between runs (GET /shells, POST /shells/kill: see
// runner-control.ts).
/** The header of GET /shells that names the version of the list the asker holds: the answer waits
 * until the list differs from it (or SHELLS_WAIT_MS has passed). */
export const SHELLS_AFTER_HEADER = "x-harness-shells-after";
/** The longest a GET /shells waits for a change: well under the time a runner keeps a connection
 * nobody uses (30 s), so that a watcher's next request finds it open. */
export const SHELLS_WAIT_MS = 20_000;
/** A version of the list of shells: the same list, the same version. */
export const SHELLS_VERSION_PATTERN = /^[0-9a-f]{16}$/;
/** GET /shells's answer. */
export const RunnerShellsSchema = z.object({ version: z.string().regex(SHELLS_VERSION_PATTERN), shells: z.array(BackgroundShellSchema).max(MAX_LISTED_SHELLS) });
export type RunnerShells = z.infer<typeof RunnerShellsSchema>;
/** POST /shells/kill's answer: what the kill did, in words (/tasks kill's). */
export const ShellKilledSchema = z.object({ ok: z.literal(true), message: z.string() });
