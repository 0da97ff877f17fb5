// The client ⇄ session wire protocol. Every frame is JSON text. These schemas are the single
// definition of the wire: the server validates what clients send with them, and the types
// exported here are inferred from them so that no wire type is written twice.
import { z } from "zod";
import { MAX_COMMANDS_PER_FRAME, MAX_TURNS_LIMIT } from "./limits.ts";
import { FileChangeSchema, MAX_DENY_REASON_CHARS } from "./runner-control.ts";
import { wellFormedText } from "./well-formed.ts";
import { MAX_LISTED_SHELLS } from "./shells-text.ts";

export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };
export const JSONValueSchema: z.ZodType<JSONValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JSONValueSchema), z.record(z.string(), JSONValueSchema)]),
);

export const PermissionModeSchema = z.enum(["default", "acceptEdits", "fullAuto"]);
export const EffortSchema = z.enum(["low", "medium", "high", "max"]);

/** Text a client sends. */
const text = wellFormedText;

export { MAX_TURNS_LIMIT };

/** A session's settings, for its next run and, from its next model call, the run under way. */
export const HarnessConfigSchema = z.strictObject({
  /** Claude Code's modes: "default" asks before edits and commands the rules do not allow;
   * "acceptEdits" lets edits inside the project through; "fullAuto" is bypassPermissions: every
   * call but those deny rules refuse. */
  permissionMode: PermissionModeSchema.optional(),
  /** Model turns a run may take before it stops, saying so (default 100). */
  maxTurns: z.number().int().positive().max(MAX_TURNS_LIMIT).optional(),
  // A model id (claude-sonnet-4-5, ollama/llama3.1:8b…) is one printable word.
  model: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\s\p{Cc}]+$/u, "must be a model id: no spaces or control characters")
    .optional(),
  /** Replaces the agent's default system prompt; "" restores the default. */
  systemPrompt: text().max(200_000).optional(),
  /** The effort the model is asked for, as with Claude Code's --effort. */
  effort: EffortSchema.optional(),
});
export type HarnessConfig = z.infer<typeof HarnessConfigSchema>;

/** Longest prompt or steer message a client may send, in characters. */
export const MAX_PROMPT_CHARS = 500_000;
// Whitespace alone is refused too: the model API refuses a text block without other characters.
const prompt = text()
  .max(MAX_PROMPT_CHARS)
  .refine((value) => value.trim() !== "", "must not be empty or only whitespace");
/** Ids of tool calls, messages and sessions: ours are UUIDs, a model's tool ids a few dozen characters. */
const id = z.string().min(1, "must not be empty").max(200, "must be at most 200 characters");

// Strict: a field a command does not know is refused, not dropped (a misspelt `dryRun` would
// otherwise rewind for real).
export const HarnessCommandSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("submit"), prompt }),
  z.strictObject({ type: z.literal("cancel") }),
  z.strictObject({ type: z.literal("steer"), message: prompt }),
  z.strictObject({ type: z.literal("approve"), toolCallId: id }),
  z.strictObject({ type: z.literal("deny"), toolCallId: id, reason: text().max(MAX_DENY_REASON_CHARS).optional() }),
  z.strictObject({ type: z.literal("resume"), prompt, sessionId: id }),
  z.strictObject({ type: z.literal("configure"), config: HarnessConfigSchema }),
  z.strictObject({ type: z.literal("rewind"), messageId: id, dryRun: z.boolean().optional() }),
  /** Stops the sub-agent of a running Task call; the run goes on, the call's result saying it was
   * interrupted. */
  z.strictObject({ type: z.literal("stop-agent"), toolCallId: id }),
  /** Moves a running Bash call to the background (Claude Code's Ctrl+B): its command goes on as a
   * background shell and the call answers at once with the shell's id, the run going on. Without
   * `toolCallId`, every Bash call of the run that is running. */
  z.strictObject({ type: z.literal("background"), toolCallId: id.optional() }),
  /** Stops background shell `shellId` (one of the state's `shells`, running), as /tasks kill does:
   * through the run under way, or between runs on the session's runner; its status turns "killed"
   * in `shells`. */
  z.strictObject({ type: z.literal("kill-shell"), shellId: id }),
]);
export type HarnessCommand = z.infer<typeof HarnessCommandSchema>;
export type HarnessCommandType = HarnessCommand["type"];
export const COMMAND_TYPES = HarnessCommandSchema.options.map((o) => o.shape.type.value);

/** A client frame. Commands are validated one by one (see parseClientFrame), so the envelope only
 * checks that `commands` is an array. */
export const ClientMessageSchema = z.strictObject({
  type: z.literal("commands"),
  commands: z.array(z.unknown()).max(MAX_COMMANDS_PER_FRAME, `must hold at most ${MAX_COMMANDS_PER_FRAME} commands`),
});
export type ClientMessage = { type: "commands"; commands: HarnessCommand[] };

export const DeltaOperationSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("set"), path: z.array(z.string()), value: JSONValueSchema }),
  z.object({ type: z.literal("append-text"), path: z.array(z.string()), value: z.string() }),
]);
export type DeltaOperation =
  | { type: "set"; path: string[]; value: JSONValue }
  | { type: "append-text"; path: string[]; value: string };

export const ToolCallStatusSchema = z.enum(["running", "awaiting-approval", "complete", "error", "denied"]);
export const HarnessToolCallSchema = z.object({
  /** The id approve() and deny() take while the call waits for approval. */
  id: z.string(),
  /** The tool, by Claude Code's names: Bash, Read, Write, Edit, Task, mcp__<server>__<tool>… */
  name: z.string(),
  /** "awaiting-approval" until approved or denied; "denied" when denied (`output` then says the
   * reason the model was given); "error" for a call that failed or a run cancelled under it. */
  status: ToolCallStatusSchema,
  input: z.record(z.string(), z.unknown()).optional(),
  /** What the model was given back, as text; absent while the call runs. */
  output: z.string().optional(),
  /** Set on calls made by a sub-agent: the id of the Task call that started it. */
  parentToolCallId: z.string().optional(),
  /** How much of the message's content there was when the call was made: a client that shows a
   * whole message (a snapshot) puts the call there, between the text before it and the text after. */
  textOffset: z.number().int().nonnegative().optional(),
  /** The workspace files the call created or changed, first of the run's to (see the message's
   * `changedFiles`), as the run's file checkpoint saw them after it ended. */
  changedFiles: z.array(z.string()).optional(),
});
export type HarnessToolCall = z.infer<typeof HarnessToolCallSchema>;

/** The most workspace paths one report of changed files names (see ChangedFilesSchema). */
export const MAX_CHANGED_FILES = 1000;
/** Files of the workspace a run created or changed, as the runner's file checkpoint sees them (the
 * workspace's .gitignore'd files, node_modules, .git and the runner's own state never are):
 * workspace-relative paths with "/" between names, each once. `truncated`: there were more than
 * these (a run that writes thousands of files). */
export const ChangedFilesSchema = z.object({
  paths: z.array(z.string().min(1).max(4096)).max(MAX_CHANGED_FILES),
  truncated: z.literal(true).optional(),
});
export type ChangedFiles = z.infer<typeof ChangedFilesSchema>;

export const MessageStatusSchema = z.enum(["running", "complete", "error", "cancelled"]);
export const HarnessMessageSchema = z.object({
  /** A user message's id is what rewind and a fork take. */
  id: z.string(),
  role: z.enum(["user", "assistant"]),
  /** The text; an assistant message's grows by append-text while it is "running". */
  content: z.string(),
  /** An assistant message's thinking (the model's reasoning before its reply), when the model
   * showed any: grows by append-text while the message is "running", as `content` does. Not part
   * of the reply: a client that ignores it still shows the conversation whole. */
  thinking: z.string().optional(),
  /** On a user message: it was sent while a run was under way (a steer) and joined that run, so
   * there is no rewinding to before it alone (rewind refuses it). Absent on prompts. */
  steer: z.literal(true).optional(),
  /** An assistant message is "running" until its run ends, then "complete", "error" (the state's
   * `error` says why) or "cancelled". User messages are "complete". */
  status: MessageStatusSchema,
  /** The tool calls the assistant made in this reply, in order (see `textOffset` for where). */
  toolCalls: z.array(HarnessToolCallSchema).optional(),
  /** On an assistant message: the workspace files its run created or changed so far, in the order
   * first seen, as the run's file checkpoint tells (see ChangedFilesSchema); grows while the run
   * goes on. A file deleted since stays named. Absent when the run took no checkpoint. */
  changedFiles: ChangedFilesSchema.optional(),
});
export type HarnessMessage = z.infer<typeof HarnessMessageSchema>;

export const UsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  /** Anthropic's server-side web searches ($10 per 1,000 on top of the tokens, in `costUsd`). */
  webSearchRequests: z.number().optional(),
  /** What the calls whose price is known cost: without `unpricedCalls`, all of them. */
  costUsd: z.number().optional(),
  /** Model calls whose price is not known (a model missing from the price list, on a server that is
   * not local): their cost is missing from `costUsd`, which is then a lower bound, or absent. */
  unpricedCalls: z.number().int().nonnegative().optional(),
  /** Model calls whose server reported no usage (some OpenAI-compatible servers never do): their
   * tokens are missing from the counts, which are then a lower bound, not a measure. */
  unreportedCalls: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** What a conversation has spent over all its runs (what /cost shows), kept with the conversation
 * so that a conversation resumed elsewhere, or after a restart, goes on counting from it: `calls`
 * model calls, `apiMs` waiting for them, `wallMs` from its start to its last run's end in the
 * processes that ran it. */
export const ConversationSpentSchema = z.object({
  usage: UsageSchema,
  calls: z.number().int().nonnegative(),
  apiMs: z.number().nonnegative(),
  wallMs: z.number().nonnegative(),
});
export type ConversationSpent = z.infer<typeof ConversationSpentSchema>;

/** A background shell of the conversation: a command Bash started with run_in_background, or a
 * running call the user moved to the background (Ctrl+B). `startedAt`, `endedAt`: milliseconds
 * since the epoch by the runner's clock; `exitCode`: its main process's, once it exited on its own. */
export const BackgroundShellSchema = z.object({
  id: z.string(),
  command: z.string(),
  status: z.enum(["running", "completed", "failed", "killed"]),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  exitCode: z.number().int().optional(),
});
export type BackgroundShellInfo = z.infer<typeof BackgroundShellSchema>;

export const SessionStatusSchema = z.enum(["idle", "running", "awaiting-approval", "error"]);
/** `reason`: why the call asks, when a hook or an ask rule made it ask (for the question). */
export const PendingApprovalSchema = z.object({ toolCallId: z.string(), toolName: z.string(), description: z.string(), reason: z.string().optional() });

/** A steer on its way to the model: "sending" while the session passes it to the run under way,
 * "queued" once the run holds it, for the model's next step (after the tool calls under way). */
export const QueuedSteerSchema = z.object({ message: z.string(), status: z.enum(["sending", "queued"]) });
export type QueuedSteer = z.infer<typeof QueuedSteerSchema>;
/** Something the user should see that is not part of the conversation (a settings file with an
 * error, an MCP server that failed, a hook's message). */
export const NoticeSchema = z.object({ level: z.enum(["info", "warning", "error"]), message: z.string() });
export type Notice = z.infer<typeof NoticeSchema>;

/** What a rewind to `messageId` would restore (a dry run); null once it no longer applies. */
export const RewindPreviewSchema = z.object({ messageId: z.string(), files: z.array(FileChangeSchema) });
export type RewindPreview = z.infer<typeof RewindPreviewSchema>;

/** What the session's runs work with, as the last run to start said it (the init message of Claude
 * Code's stream-json): what the user may type after "/" (built-in and custom commands, skills, MCP
 * servers' prompts), the tools the model may call, the MCP servers and how each stands
 * ("connected", "failed", "needs-auth", "pending"…), the agents Task may start, the skills and the
 * output style. A UI's command menu and server panel read it; it changes only when a run starts
 * with something else. */
export const RunAvailableSchema = z.object({
  model: z.string(),
  slashCommands: z.array(z.string()),
  tools: z.array(z.string()),
  mcpServers: z.array(z.object({ name: z.string(), status: z.string() })),
  agents: z.array(z.string()),
  skills: z.array(z.string()),
  outputStyle: z.string(),
  /** The argument hints (front matter `argument-hint`) of the custom commands and skills among
   * slashCommands that have one, by name: what a UI shows after a command's name until arguments
   * are typed. Absent when none has one (and from the claude-code backend). */
  argumentHints: z.record(z.string(), z.string()).optional(),
});
export type RunAvailable = z.infer<typeof RunAvailableSchema>;

export const HarnessStateSchema = z.object({
  /** "running" while a run is under way, "awaiting-approval" while it waits for a tool call to be
   * approved or denied (still under way), "error" after a run failed (until the next prompt), else
   * "idle". A failed run leaves "error", not "idle": wait for "not under way", not for "idle". */
  status: SessionStatusSchema,
  /** The conversation: each prompt is a user message followed by the assistant's reply. */
  messages: z.array(HarnessMessageSchema),
  /** The tool calls waiting for approve(toolCallId) or deny(toolCallId, reason); `description`
   * says what the call does (the command, the file), for the question to the user. */
  pendingApprovals: z.array(PendingApprovalSchema).optional(),
  /** The agent backend's own conversation id, when it reports one (Claude Code's session id under
   * the claude-code backend). Not the session's id: resume takes the Harness session's id. */
  sessionId: z.string().optional(),
  /** Why the last run failed; "" once the next prompt starts (test it as a string's truth). */
  error: z.string().optional(),
  // Extensions beyond the core shape; clients that do not know them ignore them.
  config: HarnessConfigSchema.optional(),
  usage: UsageSchema.optional(),
  /** The conversation's totals as its runner last counted them (/cost), sent with the next query. */
  spent: ConversationSpentSchema.optional(),
  /** The usage of the main agent's last model call, as the last run that reported its calls gave
   * it: how full the context was then (a statusLine's current_usage). */
  lastCall: UsageSchema.optional(),
  rewindPreview: RewindPreviewSchema.nullable().optional(),
  /** The most recent notices, oldest first. */
  notices: z.array(NoticeSchema).optional(),
  /** What the last run to start had available (see RunAvailableSchema); absent before any did. */
  available: RunAvailableSchema.optional(),
  /** When the run under way started (running, or waiting for an approval), in milliseconds since
   * the epoch by the session's clock; null once it is over, absent before any run set it. A client
   * that joins a run under way counts its time from this, not from the join. */
  runStartedAt: z.number().nullable().optional(),
  /** The conversation's background shells, oldest first, as its runner last reported them: live
   * while a run is under way (a shell started, moved to the background, ended or killed), between
   * runs too while one runs (the session watches its runner), and brought up to date as each run
   * starts. Absent before any. */
  shells: z.array(BackgroundShellSchema).max(MAX_LISTED_SHELLS).optional(),
  /** The steers sent to the run under way that the model has not read yet, oldest first, from every
   * client of the session. One goes once the model reads it (a user message marked `steer` then
   * holds its text; a runner may pass several on as one) or the run ends (a completed run's go on
   * as the next run's prompt; a cancelled or failed run's senders get an error frame saying so).
   * Absent before any steer. */
  steers: z.array(QueuedSteerSchema).optional(),
});
export type HarnessState = z.infer<typeof HarnessStateSchema>;

export const ServerMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("state"), state: HarnessStateSchema, seq: z.number().int().nonnegative() }),
  z.object({ type: z.literal("delta"), operations: z.array(DeltaOperationSchema), seq: z.number().int().positive() }),
  z.object({ type: z.literal("error"), message: z.string(), code: z.string().optional(), command: z.number().int().optional() }),
]);
export type ServerMessage =
  | { type: "state"; state: HarnessState; seq: number }
  | { type: "delta"; operations: DeltaOperation[]; seq: number }
  | { type: "error"; message: string; code?: string; command?: number };

export function emptyState(): HarnessState {
  return { status: "idle", messages: [] };
}
