// Control of a runner beyond POST /query. All bodies are JSON; answers are JSON.
//
//   POST /runs/:requestId/approve  {toolUseId}            → 200 {ok:true} | 404 (no such run or pending call)
//   POST /runs/:requestId/deny     {toolUseId, reason?}   → 200 | 404
//   POST /runs/:requestId/steer    {message}              → 200 (delivered at the next turn boundary) | 404
//   POST /runs/:requestId/cancel                          → 200; the run ends with run.error "cancelled"
//   POST /runs/:requestId/configure {permissionMode?, model?, maxTurns?, systemPrompt?, effort?}
//                                                         → 200; applies from the next model call
//   POST /runs/:requestId/todos {todos}                   → 200: the run's todo list is this one, which the
//                                                           model reads with its next request | 404 |
//                                                           409 (finished) | 501 (its backend keeps its own)
//   POST /runs/:requestId/background {toolUseId?}         → 200: the running Bash call (every running one,
//                                                           without an id) goes on as a background shell
//                                                           and answers now with its id | 404 (none such
//                                                           running, or the backend moves none) | 409
//                                                           A request for a Bash call announced but not yet
//                                                           started (its hooks, permission, checkpoint) is
//                                                           held (200) until it starts; one that then never
//                                                           starts is told in a notice. A call waiting for
//                                                           approval is not running: named, 409; without
//                                                           an id, it is passed by
//   POST /runs/:requestId/kill-shell {shellId}            → 200: the background shell is stopped | 404 (no
//                                                           such shell, or the backend keeps none) | 409 (it
//                                                           is not running, or the run finished)
//   GET  /runs/:requestId/events   (header Last-Event-ID) → SSE: the run's events after that id, then live;
//                                                           404 when the run is unknown (finished runs
//                                                           are kept for a while after they end)
//   POST /rewind {userMessageId, dryRun?}                 → 200 RewindResult | 404 (no checkpoint) | 409 (busy)
//   GET  /shells   (header x-harness-shells-after)        → 200 RunnerShells (runner.ts): the conversation's background
//                                                           shells, at once; with the header (a version
//                                                           an answer gave), once the list differs from
//                                                           that one, or after SHELLS_WAIT_MS with the
//                                                           same version (a long poll, between runs too)
//   POST /shells/kill {shellId}                           → 200 {ok, message}: the shell is stopped, run or
//                                                           no run | 404 (no such shell) | 409 (it is not
//                                                           running)
//
// Closing the POST /query request cancels the run, unless the query was sent with the header
// `x-harness-keep-running: 1`: then the run goes on without a listener (a session server that
// restarts re-attaches with GET /runs/:requestId/events) and only POST …/cancel stops it.
import { z } from "zod";
import { wellFormedText } from "./well-formed.ts";
import { MAX_TURNS_LIMIT } from "./limits.ts";
import { SESSION_END_REASONS } from "./session-end.ts";

/** The permission modes a run can be in (Claude Code's). */
export const RunnerPermissionModeSchema = z.enum(["default", "acceptEdits", "plan", "bypassPermissions"]);
export type RunnerPermissionMode = z.infer<typeof RunnerPermissionModeSchema>;

/** Longest id of a tool call or a backend's session (model services' are a few dozen characters). */
export const MAX_ID_CHARS = 256;
/** Longest user message id, as a query's userMessageId (checkpoints are filed under it). */
export const MAX_USER_MESSAGE_ID_CHARS = 200;

/** An id a request names, at most `max` characters: a longer one names nothing, and is refused
 * (saying how long it is) before any lookup. */
export function idOfAtMost(max: number) {
  return z.string().max(max, { error: (issue) => `must be at most ${max} characters (it has ${String(issue.input).length})` });
}

export const ApproveBodySchema = z.strictObject({ toolUseId: idOfAtMost(MAX_ID_CHARS).min(1) });
/** Longest reason a denial may give the model, in characters. */
export const MAX_DENY_REASON_CHARS = 10_000;
export const DenyBodySchema = z.strictObject({ toolUseId: idOfAtMost(MAX_ID_CHARS).min(1), reason: wellFormedText().max(MAX_DENY_REASON_CHARS).optional() });
/** Stops the sub-agent a Task call of the run started, the run going on: the call's result is
 * then that it was interrupted (POST /runs/:requestId/stop-agent; 404 when no sub-agent of that
 * call is running, or the backend stops none alone). */
export const StopAgentBodySchema = z.strictObject({ toolUseId: idOfAtMost(MAX_ID_CHARS).min(1) });
/** Moves a running Bash call of the run (a sub-agent's too) to the background, as Claude Code's
 * Ctrl+B does: its command goes on as a background shell, not started again, and the call answers at
 * once with the shell's id. Without `toolUseId`, every Bash call running. */
export const BackgroundBodySchema = z.strictObject({ toolUseId: idOfAtMost(MAX_ID_CHARS).min(1).optional() });
/** Stops one of the conversation's background shells while a run goes on (POST
 * /runs/:requestId/kill-shell), as /tasks kill <id> does between runs. */
export const KillShellBodySchema = z.strictObject({ shellId: idOfAtMost(MAX_ID_CHARS).min(1) });
/** What a kill of a background shell did: "killed" it; stopped the processes a shell that had
 * ended left running ("leftovers"); nothing, the shell having ended ("not-running") or being
 * unknown ("unknown"). `message` says it in words (/tasks kill's). */
export type KillShellAnswer = { outcome: "killed" | "leftovers" | "not-running" | "unknown"; message: string };
/** The most items a todo list set from outside the run may hold, and the longest text of one. */
export const MAX_TODOS = 200;
export const MAX_TODO_CHARS = 10_000;
export const TodoItemSchema = z.strictObject({
  content: wellFormedText().min(1).max(MAX_TODO_CHARS),
  status: z.enum(["pending", "in_progress", "completed"]),
  /** The same in the present continuous, shown while it is in progress. */
  activeForm: wellFormedText().min(1).max(MAX_TODO_CHARS),
});
export type TodoItem = z.infer<typeof TodoItemSchema>;
/** A new todo list for the run, replacing the one its TodoWrite calls keep. */
export const TodosBodySchema = z.strictObject({ todos: z.array(TodoItemSchema).max(MAX_TODOS) });
export const SteerBodySchema = z.strictObject({ message: wellFormedText().min(1).max(500_000) });
export const RunConfigureBodySchema = z.strictObject({
  permissionMode: RunnerPermissionModeSchema.optional(),
  model: z.string().min(1).optional(),
  /** A run's turns may be raised to what a query may ask for, no further. */
  maxTurns: z.number().int().positive().max(MAX_TURNS_LIMIT).optional(),
  systemPrompt: z.string().optional(),
  effort: z.enum(["low", "medium", "high", "max"]).optional(),
});
export type RunConfigureBody = z.infer<typeof RunConfigureBodySchema>;
/** A request to the run in flight: the body of POST /runs/:requestId/<type>. */
export type RunControl =
  | { type: "approve"; toolUseId: string }
  | { type: "deny"; toolUseId: string; reason?: string }
  | { type: "steer"; message: string }
  | { type: "cancel" }
  | { type: "stop-agent"; toolUseId: string }
  | { type: "background"; toolUseId?: string }
  | { type: "kill-shell"; shellId: string }
  | { type: "todos"; todos: TodoItem[] }
  | { type: "configure"; config: RunConfigureBody };
export const RewindBodySchema = z.strictObject({ userMessageId: idOfAtMost(MAX_USER_MESSAGE_ID_CHARS).min(1), dryRun: z.boolean().optional() });

export const FileChangeSchema = z.object({
  path: z.string(),
  /** restore: the file is put back as it was; delete: the file did not exist then and is removed. */
  action: z.enum(["restore", "delete"]),
  /** Lines added and removed going from the current file to the restored one, when both are text. */
  linesAdded: z.number().int().nonnegative().optional(),
  linesRemoved: z.number().int().nonnegative().optional(),
});
export const RewindResultSchema = z.object({ dryRun: z.boolean(), files: z.array(FileChangeSchema) });
export type FileChange = z.infer<typeof FileChangeSchema>;
export type RewindResult = z.infer<typeof RewindResultSchema>;

export const KEEP_RUNNING_HEADER = "x-harness-keep-running";

// A runner process can serve several workspaces, each a runner of its own under a path prefix:
//
//   PUT    /workspaces/:id  {workspace, stateDir?}  → 200 {id, workspace} (again with the same
//                                                     workspace: 200; another workspace: 409)
//   DELETE /workspaces/:id  [{reason?}]             → 200; its run in flight is cancelled, and its
//                                                     conversation ends: SessionEnd hooks are told
//                                                     `reason` (default "other"; see session-end.ts)
//   *      /workspaces/:id/<path>                   → the RunnerProtocol above, for that workspace
//                                                     (404 when the id is not open)
// Ids are 1–64 characters of [A-Za-z0-9_-].
export const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const absolutePath = () => z.string().startsWith("/", "must be an absolute path").refine((path) => !path.includes("\0"), "must not hold a NUL character");

export const WorkspaceOpenBodySchema = z.strictObject({
  /** Absolute path of the workspace; created when missing. */
  workspace: absolutePath().refine((path) => !/^\/+$/.test(path), "must not be the root directory"),
  /** The runner-side state of the workspace (checkpoints, a backend's transcripts); default
   * `<workspace>.harness-state`. */
  stateDir: absolutePath().optional(),
});
export type WorkspaceOpenBody = z.infer<typeof WorkspaceOpenBodySchema>;

export const SessionEndReasonSchema = z.enum(SESSION_END_REASONS);

/** DELETE /workspaces/:id's body, which may be left out. */
export const WorkspaceCloseBodySchema = z.strictObject({ reason: SessionEndReasonSchema.optional() });
export type WorkspaceCloseBody = z.infer<typeof WorkspaceCloseBodySchema>;
