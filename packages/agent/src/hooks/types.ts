import type { PermissionMode, Rule } from "../permissions/types.ts";
import type { PermissionUpdate } from "../permissions/updates.ts";

/** Hook events, in Claude Code's names. */
export const HOOK_EVENT_NAMES = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "PostCompact",
  "Notification",
  "PermissionDenied",
  "InstructionsLoaded",
] as const;
export type HookEventName = (typeof HOOK_EVENT_NAMES)[number];

/** One command hook from settings. `timeout` is in seconds (default DEFAULT_HOOK_TIMEOUT_SECONDS).
 * An `async` one runs in the background: it decides nothing, and what it says reaches the model
 * with its next request (see RunHooksOptions.background). */
export type CommandHook = {
  type: "command";
  command: string;
  timeout?: number;
  async?: boolean;
  once?: boolean;
  if?: HookCondition;
  /** Variables of its own, over the run's (a plugin's hook gets CLAUDE_PLUGIN_ROOT). */
  env?: Record<string, string>;
};

/** A hook that POSTs the event's JSON to `url` and reads the answer's body as a command hook's
 * output. `headers` may name environment variables ($NAME, ${NAME}); only those in
 * `allowedEnvVars` are filled in, the others read as empty. */
export type HttpHook = { type: "http"; url: string; headers?: Record<string, string>; allowedEnvVars?: string[]; timeout?: number; once?: boolean; if?: HookCondition };

/** A hook whose verdict a model gives: `prompt` (its `$ARGUMENTS` standing for the event's JSON)
 * asks it whether the action may go on. An agent hook's model may first look at the project with
 * Read, Grep and Glob. `model` defaults to the small fast model (haiku). */
export type PromptHook = { type: "prompt" | "agent"; prompt: string; model?: string; timeout?: number; once?: boolean; if?: HookCondition };

/** A hook the program driving the run answers in its own code (the Agent SDK's hook callbacks):
 * `call` is given the event's input (as a command hook gets it on stdin) and resolves with what a
 * command hook would print as JSON output, or rejects with why it failed; it settles once `signal`
 * fires (a timeout, the run's cancellation). `id` tells two apart. `onFailure` "block": a failure
 * (a rejection, an answer that is no JSON object, a timeout) blocks what the event guards, as an
 * exit code 2 would; on Stop and SubagentStop it does not, as it would keep the turn going. */
export type CallbackHook = { type: "callback"; id: string; call: (input: HookInput, signal: AbortSignal) => Promise<unknown>; timeout?: number; once?: boolean; onFailure?: "continue" | "block" };

/** A hook's `if`, parsed once as its settings are read (see parseIfCondition): the rule as
 * written, trimmed, which tells two hooks apart and names the hook's condition, and the rule. */
export type HookCondition = { text: string; rule: Rule };

/** Any hook; `once`: it runs at most once in a conversation (Claude Code gives it to skills' hooks).
 * `if` (command, http, prompt and agent hooks): one permission rule, such as `Bash(git commit *)`
 * or `Edit(*.ts)`, that a tool event's call must meet for the hook to start, beyond its group's
 * matcher (see callMeetsIf); on other events such a hook never starts. */
export type Hook = CommandHook | HttpHook | PromptHook | CallbackHook;

/** A matcher and the hooks it selects. No matcher, `""` or `"*"` selects every occurrence. */
export type HookMatcherGroup = { matcher?: string; hooks: Hook[] };

/** The `hooks` value of a settings file, validated. */
export type HooksConfig = { [E in HookEventName]?: HookMatcherGroup[] };

/** A mistake in a hooks setting. `kept`: the hook is loaded past it (with the default, or without
 * the bad key) rather than dropped. */
export type HookDiagnostic = { file: string; key?: string; message: string; kept?: true };

type HookInputBase = {
  session_id: string;
  transcript_path: string;
  /** The agent's working directory when the event fired; runHooks fills it from its options when
   * left out. */
  cwd?: string;
  /** The run's mode as it is when the event fires, dontAsk included, as Claude Code tells it. */
  permission_mode?: PermissionMode;
  /** Within a sub-agent: its id (agent_<uuid>, as on its events) and type (its agent's name). */
  agent_id?: string;
  agent_type?: string;
};

export type PreToolUseInput = HookInputBase & {
  hook_event_name: "PreToolUse";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
};
/** A call is about to be put to the user for approval (or refused, with no one to ask). */
export type PermissionRequestInput = HookInputBase & {
  hook_event_name: "PermissionRequest";
  tool_name: string;
  tool_input: Record<string, unknown>;
};
export type PostToolUseInput = HookInputBase & {
  hook_event_name: "PostToolUse";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_response: unknown;
  tool_use_id: string;
};
/** After a tool call that failed (its result is an error): `error` is what the model is told. */
export type PostToolUseFailureInput = HookInputBase & {
  hook_event_name: "PostToolUseFailure";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
  error: string;
  is_interrupt: boolean;
};
export type UserPromptSubmitInput = HookInputBase & { hook_event_name: "UserPromptSubmit"; prompt: string };
/** `stop_hook_active` is true when the agent is already continuing because a Stop hook blocked
 * stopping; hooks check it to avoid keeping the agent running forever. */
export type StopInput = HookInputBase & { hook_event_name: "Stop"; stop_hook_active: boolean; last_assistant_message?: string };
/** A turn ended because a model request failed (after its retries). Only to be told: the output
 * and exit code of its hooks are ignored. Matchers select on `error_type`. */
export type StopFailureInput = HookInputBase & {
  hook_event_name: "StopFailure";
  error_type: "rate_limit" | "authentication_failed" | "billing_error" | "invalid_request" | "model_not_found" | "server_error" | "unknown";
  /** The HTTP status ("429") or the stream error's type ("overloaded_error"), when known. */
  error?: string;
  error_message: string;
  last_assistant_message?: string;
};
/** As a sub-agent starts, before its first request: `additionalContext` goes to it with its prompt. */
export type SubagentStartInput = HookInputBase & { hook_event_name: "SubagentStart"; agent_id: string; agent_type: string };
export type SubagentStopInput = HookInputBase & {
  hook_event_name: "SubagentStop";
  stop_hook_active: boolean;
  agent_id: string;
  agent_type: string;
  last_assistant_message?: string;
};
export type SessionStartInput = HookInputBase & {
  hook_event_name: "SessionStart";
  source: "startup" | "resume" | "clear" | "compact";
  /** The model the conversation runs on. */
  model?: string;
};
export type SessionEndInput = HookInputBase & {
  hook_event_name: "SessionEnd";
  reason: "clear" | "logout" | "prompt_input_exit" | "other";
};
export type PreCompactInput = HookInputBase & {
  hook_event_name: "PreCompact";
  trigger: "manual" | "auto";
  /** What the user typed after /compact; empty for automatic compaction. */
  custom_instructions: string;
};
/** After a compaction that succeeded: `compact_summary` is the summary the conversation goes on from. */
export type PostCompactInput = HookInputBase & { hook_event_name: "PostCompact"; trigger: "manual" | "auto"; compact_summary: string };
export type NotificationInput = HookInputBase & {
  hook_event_name: "Notification";
  message: string;
  /** For example "permission_prompt" or "idle_prompt"; matchers select on it when present. */
  notification_type?: string;
  title?: string;
};

/** A tool call refused with no one asked: Claude Code fires it for its auto mode's refusals; here,
 * for those of the permission mode itself (dontAsk, or a run with no one to approve), never for a
 * deny rule's, a hook's or a person's. Matchers select on `tool_name`. */
export type PermissionDeniedInput = HookInputBase & {
  hook_event_name: "PermissionDenied";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
  /** Why the call was refused: what the model is told. */
  reason: string;
};
/** A memory file (CLAUDE.md, CLAUDE.local.md, a rule, an import) joined the conversation. Only to be
 * told: what its hooks print and how they exit are ignored. Matchers select on `load_reason`. */
export type InstructionsLoadedInput = HookInputBase & {
  hook_event_name: "InstructionsLoaded";
  /** Absolute path. */
  file_path: string;
  memory_type: "User" | "Project" | "Local" | "Managed";
  load_reason: "session_start" | "nested_traversal" | "path_glob_match" | "include" | "compact";
  /** A rule's `paths`, on path_glob_match. */
  globs?: string[];
  /** The file whose use by a tool brought it in, on the loads after the start. */
  trigger_file_path?: string;
  /** The memory file that imports it, on include. */
  parent_file_path?: string;
};

/** What a hook receives as JSON on its stdin. */
export type HookInput =
  | PreToolUseInput
  | PermissionRequestInput
  | PostToolUseInput
  | PostToolUseFailureInput
  | UserPromptSubmitInput
  | StopInput
  | StopFailureInput
  | SubagentStartInput
  | SubagentStopInput
  | SessionStartInput
  | SessionEndInput
  | PreCompactInput
  | PostCompactInput
  | NotificationInput
  | PermissionDeniedInput
  | InstructionsLoadedInput;

export type HookInputFor<E extends HookEventName> = Extract<HookInput, { hook_event_name: E }>;

export type PermissionDecision = "allow" | "deny" | "ask";

/** How one hook went: its process, its request, or its model's verdict. */
export type HookRunResult = {
  /** What messages name the hook by: its command, its URL, or its prompt (cut short). */
  command: string;
  /** null when the process did not exit on its own (killed, or never started). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** Killed because the run was cancelled. */
  aborted: boolean;
  /** The hook asked (JSON `suppressOutput`) that its stdout be kept out of the transcript view. */
  suppressOutput: boolean;
  /** Why the process could not be started or was killed by a signal it did not expect. */
  error?: string;
  /** What ran: a command (the default), a request, a model's evaluation, or the program's callback. */
  via?: "http" | "model" | "callback";
};

/** What a PostToolUse hook gave in place of the tool's output, unchecked, and under which field. */
export type UpdatedToolOutput = { field: "updatedToolOutput" | "updatedMCPToolOutput"; value: unknown };

/** Every matching hook of one event, combined. Results are in configuration order whatever order
 * the hooks finished in.
 *
 * What the loop does with it, per event:
 * - `continue: false` (any event): stop the run after this step; show `stopReason` to the user, not
 *   the model. It takes precedence over every other field.
 * - PreToolUse: `permissionDecision` "deny" → do not run the tool; `permissionDecisionReason` is the
 *   tool_result text the model sees (`blocked` is true and `blockReason` is the same text). "ask" →
 *   ask the user, showing the reason. "allow" → skip the permission prompt (deny rules still apply).
 *   None → the normal permission check. Run the tool with `updatedInput` when present.
 * - PermissionRequest: `permissionDecision` "allow" → run the call without asking (with
 *   `updatedInput` when present, and `updatedPermissions` applied as an approval's are); "deny" →
 *   refuse it, `permissionDecisionReason` being what the model sees; none → ask as usual.
 * - PostToolUse, PostToolUseFailure: `blocked` → show `blockReason` to the model with the tool
 *   result (the tool has run, or failed).
 * - PostToolUse: `updatedOutput` → the model sees it instead of the tool's output, once checked
 *   against the tool (hooks/updated-output.ts).
 * - UserPromptSubmit: `blocked` → drop the prompt (it never reaches the model or the transcript)
 *   and show `blockReason` to the user.
 * - Stop / SubagentStop: `blocked` → do not stop; give `blockReason` to the model as what to do
 *   next, and send the next Stop event with `stop_hook_active: true`.
 * - `additionalContext` (UserPromptSubmit, SessionStart, SubagentStart, PostToolUse, PreToolUse):
 *   text to add to the model's context (SubagentStart's, the sub-agent's).
 * - PermissionDenied: `retry` → tell the model, with the refusal, that it may retry the call.
 * - `userMessages`: hook failures, timeouts, `systemMessage`s, and the stderr of exit code 2 on
 *   events that cannot block; show them to the user. The run goes on. */
export type HookResult = {
  blocked: boolean;
  blockReason?: string;
  permissionDecision?: PermissionDecision;
  permissionDecisionReason?: string;
  updatedInput?: Record<string, unknown>;
  /** A PermissionDenied hook's `retry: true`. */
  retry?: boolean;
  /** A PermissionRequest hook's "always allow" (see above). */
  updatedPermissions?: PermissionUpdate[];
  /** A PostToolUse hook's replacement of the tool's output (see above), the last one given. */
  updatedOutput?: UpdatedToolOutput;
  additionalContext: string[];
  continue: boolean;
  stopReason?: string;
  userMessages: string[];
  results: HookRunResult[];
};

export type RunHooksOptions = {
  /** The hooks' working directory, and CLAUDE_PROJECT_DIR. */
  projectDir: string;
  /** The agent's working directory: the input's `cwd` when the input has none. */
  cwd: string;
  /** Cancelling kills every running hook with all the processes it started. */
  signal: AbortSignal;
  /** Added to the hooks' environment, on top of this process's. */
  env?: Record<string, string>;
  /** On top of this process's environment, where http hooks' requests take the network variables
   * (the proxies, the CA file, the client certificate) from: the run's env as the harness takes
   * it, which a repository's settings cannot route (RunSetup.harnessEnv). Default: `env`. */
  networkEnv?: Record<string, string>;
  /** Gives prompt and agent hooks their model's verdict; without it they fail (a user notice). */
  evaluate?: HookEvaluator;
  /** The `once` hooks that have run (by identity, see identityOf): they are skipped, and those that
   * run now are added. Without it a `once` hook runs every time. */
  onceRan?: Set<string>;
  /** Where async command hooks report once they finish, long after runHooks resolved: their
   * context for the model and their messages for the user. `signal` kills them (the session
   * ends); the run's own signal does not. Without it they run all the same, unheard. */
  background?: { signal: AbortSignal; done(report: AsyncHookReport): void };
  /** Told as each hook starts and ends, async ones too (Claude Code's hook lifecycle messages). */
  observe?: HookObserver;
};

/** One hook as it runs: a fresh `id` per run, its event, what it is named by (the event, and what
 * its matcher was matched against: "PreToolUse:Bash", "SessionStart:startup"), and its kind. */
/** `matcher`: the matcher of the group it was configured in, when that group has one. */
export type ObservedHook = { id: string; event: HookEventName; name: string; type: Hook["type"]; matcher?: string };

/** Watches hooks run; what it throws is ignored, and it cannot change what the hooks do. */
export type HookObserver = {
  started(hook: ObservedHook): void;
  ended(hook: ObservedHook, run: HookRunResult): void;
};

/** What an async hook said: its `additionalContext`, plain output where that counts as context,
 * its `systemMessage`, and its failures. Its decisions have no effect. */
export type AsyncHookReport = { event: HookEventName; context?: string; userMessages: string[] };

/** One question of a prompt or agent hook to its model. */
export type HookEvaluation = { kind: "prompt" | "agent"; prompt: string; model?: string; signal: AbortSignal };

/** Asks the model; resolves with the text of its final answer, or with why there is none. Never
 * rejects. */
export type HookEvaluator = (request: HookEvaluation) => Promise<{ text: string } | { error: string }>;

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** A prompt hook's default time limit, and an agent hook's (it may make several calls). */
export const DEFAULT_PROMPT_HOOK_TIMEOUT_SECONDS = 30;
export const DEFAULT_AGENT_HOOK_TIMEOUT_SECONDS = 60;

/** The events whose hooks may be prompt or agent hooks: those where a yes or no decides something. */
export const VERDICT_EVENTS: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStop"]);
