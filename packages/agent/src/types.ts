import type { Effort, ImageBlock, ModelEvent, ModelMessage, Provider, ProviderOverrides } from "@harness/llm";
import type { AgentEvent, ConversationSpent, KillShellAnswer, ModelFailure, RegisteredTool, Usage } from "@harness/protocol";
import type { z } from "zod";
import type { TranscriptEntry } from "./compaction/types.ts";
import type { HookObserver, HooksConfig } from "./hooks/types.ts";
import type { AgentResources } from "./harness/resources.ts";
import type { McpRelay } from "./mcp/sdk-transport.ts";
import type { PermissionMode } from "./permissions/types.ts";
import type { PermissionUpdate } from "./permissions/updates.ts";
import type { SandboxPolicy } from "./sandbox/policy.ts";
import type { SettingsFileScope } from "./settings/types.ts";
import type { BackgroundAgents } from "./subagents/background-agents.ts";
import type { AgentDefinition, ForkedSkillTask, SubagentOutput, SubagentRequest } from "./subagents/types.ts";
import type { ShellCwd } from "./tools/shell/cwd.ts";
import type { TodoItem, ToolState, WebSearchProvider } from "./tools/state.ts";

export type ToolContext = {
  /** Where relative paths in tool arguments start: the agent's shell directory, where Bash's `cd`
   * left it (ToolRunContext.workingDir), else the workspace. */
  cwd: string;
  /** Fires when the run is cancelled; a tool stops its work and returns soon after. */
  signal: AbortSignal;
  toolUseId: string;
  /** The conversation's tool state (files read, background shells, todos, web search provider),
   * kept across runs. Without it, tools that need it say so, and the others skip read-before-write
   * checks. */
  state?: ToolState;
  /** The run's own web search (Claude's server-side search, through the run's provider), when its
   * model is served by Anthropic's API or Vertex AI. A search the host set on `state` wins. */
  webSearch?: WebSearchProvider;
  /** Runs a sub-agent to completion for the Task tool. The host binds it to this call (its
   * toolUseId and signal); without it the Task tool answers with an error. */
  spawnSubagent?: (request: SubagentRequest) => Promise<SubagentOutput>;
  /** The main run's background agents (Task with run_in_background), for the spawner, TaskOutput
   * and TaskStop. Absent in a sub-agent. */
  backgroundAgents?: BackgroundAgents;
  /** Fires when the user stops this call's sub-agent alone (RunAgentOptions.onStopAgent), heard
   * from the call's start: a stop asked while its hooks or its checkpoint still run keeps the
   * sub-agent from starting. Set for a Tool.stopsAlone call only. */
  agentStopped?: AbortSignal;
  /** The environment of processes the tool starts (Bash, background shells): the settings' `env`
   * laid over the run's environment. Absent: this process's environment. */
  env?: Readonly<Record<string, string>>;
  /** The environment whose network variables (the proxies, the CA file, the client certificate)
   * the tool's own requests (WebFetch's) take: the run's with the settings' `env` over it as the
   * harness takes it, a repository's settings naming none of them (RunSetup.harnessEnv). Absent:
   * `env`. */
  networkEnv?: Readonly<Record<string, string>>;
  /** Whether a deny rule keeps `tool` from the file at this absolute path: searches (Grep, Glob)
   * leave such files out of their results. Absent: nothing is left out. */
  denied?: (tool: string, file: string) => boolean;
  /** Why a deny rule keeps WebFetch from `url`, or undefined: a redirect WebFetch would follow on
   * its own is refused there. Absent: no WebFetch deny rules. */
  deniedUrl?: (url: string) => string | undefined;
  /** The run's plan mode, for ExitPlanMode: whether it is on, and leaving it (once the user has
   * approved the plan), which the run announces with a mode.changed event. Absent where there is no
   * plan mode to leave (a sub-agent). */
  planMode?: { active(): boolean; exit(): void };
  /** The run's sandbox, when the settings turn it on: Bash runs its commands inside it. */
  sandbox?: SandboxPolicy;
  /** Where the calling agent's Bash commands start, and what moves it (tools/shell/cwd.ts). Absent:
   * every command starts in `cwd`. */
  shell?: ShellCwd;
  /** Hands over output the call produced since the last time (text as it comes, in order), so
   * that people can follow a long call as it runs; what the tool returns stays its result. The host
   * gathers and caps what it streams (loop/tool-output-stream.ts). Absent: nobody follows. */
  progress?: (text: string) => void;
  /** Subscribes the call to the user's request to move it to the background (Claude Code's
   * Ctrl+B): the listener moves it and says whether it did. Returns the unsubscribe. Absent:
   * nobody can ask. */
  onBackground?: (listener: () => boolean) => () => void;
  /** Makes a skill's prompt ready as a /name makes it: runs the `!` commands (when `shell`: the
   * skill's own text has some) and reads the files it names with `@path`, each as a tool call
   * through the run's gate; the images read come back apart from the text. Absent: the Skill tool
   * gives the prompt as it is. */
  expandPrompt?: (prompt: string, shell: boolean) => Promise<{ text: string; images: ToolAttachment[] }>;
};

export type ToolImageBlock = {
  type: "image";
  source: { type: "base64"; media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp"; data: string };
};
/** A PDF that Read loaded. */
export type ToolDocumentBlock = { type: "document"; source: { type: "base64"; media_type: "application/pdf"; data: string } };
export type ToolOutputBlock = { type: "text"; text: string } | ToolImageBlock | ToolDocumentBlock;
/** What a read loaded that its text cannot hold: a picture, a PDF. */
export type ToolAttachment = ToolImageBlock | ToolDocumentBlock;

/** What the model sees as the tool_result. */
export type ToolOutput = {
  /** The result as text: the whole tool_result, or, when `blocks` is set, its summary for events and
   * the UI. */
  content: string;
  isError?: boolean;
  /** When set, the tool_result's content for the model (Anthropic content blocks), e.g. an image
   * that Read loaded. */
  blocks?: ToolOutputBlock[];
};

export type Tool = {
  readonly name: string;
  /** Shown to the model: what the tool does and when to use it. */
  readonly description: string;
  readonly parameters: z.ZodType;
  /** JSON Schema of `parameters`, as sent to the model. */
  readonly inputSchema: Record<string, unknown>;
  /** Runs the tool. `args` has already been validated against `parameters`. May throw: the loop
   * turns a thrown error into an is_error result. */
  execute(args: unknown, ctx: ToolContext): Promise<ToolOutput>;
  /** True: the tool changes no file (it reads, searches, fetches or keeps notes), so the run's
   * `beforeChanges` need not be called before it runs. */
  readonly readOnly?: boolean;
  /** True: the user may move a running call to the background (ToolContext.onBackground); a request
   * that comes while the call is still checked (hooks, permission, checkpoint) waits for the tool. */
  readonly backgroundable?: boolean;
  /** True: the call runs a sub-agent the user may stop alone, the run going on (ToolContext.agentStopped). */
  readonly stopsAlone?: boolean;
  /** What the model is told, in place of the general texts, when a call that needed the user's
   * approval did not get it: `unattended` when the run has no one to ask, `denied` when the user
   * said no (with their reason, if they gave one). */
  readonly refusals?: ToolRefusals;
  /** The longest output of this tool that enters the conversation, in characters, when it is not
   * MAX_TOOL_OUTPUT_CHARS (an MCP tool's: MAX_MCP_OUTPUT_TOKENS). */
  readonly maxOutputChars?: number;
  /** Why the call would fail, found without changing anything (an edit of a file not read, or
   * changed since): asked before its PreToolUse hooks and its permission, as Claude Code validates
   * a call's input first, so that nobody approves a call that cannot succeed. `execute` checks
   * again. Undefined: nothing stops it. */
  precheck?(args: unknown, ctx: ToolContext): Promise<string | undefined>;
};

export type ToolRefusals = { unattended: string; denied(reason: string | undefined): string };

/** A tool call that needs the user's decision (a permission decision of "ask"). */
export type ApprovalRequest = {
  toolUseId: string;
  toolName: string;
  /** The validated input the tool would run with. */
  input: Record<string, unknown>;
  /** One line for a person: the command, the file, the URL. */
  description: string;
  /** Why approval is needed: the rule or mode that asked. */
  reason: string;
  /** Why this call asks, for the person deciding, when a PreToolUse hook's "ask" (its
   * permissionDecisionReason) or an ask rule made it ask, as Claude Code's prompt says it; absent
   * when it asks only because nothing allows it. */
  askedBecause?: string;
  /** Settles when the request is answered without the user: the permission mode changed, and the
   * new one lets the call run (or refuses it). The host then settles its request with this
   * decision and stops showing it. */
  answered?: Promise<ApprovalDecision>;
};

/** `updatedPermissions`: what the approval changes for the calls that follow ("always allow"),
 * applied to the run as it goes on, and written to the settings files they name. */
export type ApprovalDecision =
  | { behavior: "allow"; updatedInput?: Record<string, unknown>; reason?: string; updatedPermissions?: readonly PermissionUpdate[] }
  | { behavior: "deny"; reason?: string };

export type RunAgentOptions = {
  /** Variables laid over the environment of the processes one tool call starts (its Bash command),
   * by the call's id: telemetry's TRACEPARENT, naming the call's span. */
  toolEnv?: (toolUseId: string) => Readonly<Record<string, string>> | undefined;
  /** The new user message. A leading `/name` runs a slash command (see harness/commands/prompt.ts). */
  prompt: string;
  /** Images the user sent with the prompt; they follow its text in the user message. */
  images?: readonly ImageBlock[];
  /** Earlier conversation, as returned in a previous run's `transcript` (compaction summaries with
   * their `meta` included; only the part from the last summary on is sent to the model). */
  history?: readonly TranscriptEntry[];
  /** Default: createProviderForModel(model, env, providerOptions). */
  provider?: Provider;
  /** Options of the provider made when `provider` is absent. */
  providerOptions?: ProviderOverrides;
  /** Default: HARNESS_MODEL, else ANTHROPIC_MODEL, else the settings' `model` (see chooseModel). A slash command's `model` overrides it
   * for the run. */
  model?: string;
  /** Replaces the default system prompt (BASE_SYSTEM_PROMPT); the environment, memory and skills
   * still follow it. Empty: the default. */
  systemPrompt?: string;
  /** Added after the system prompt (Claude Code's --append-system-prompt). */
  appendSystemPrompt?: string;
  thinking?: { budgetTokens: number };
  effort?: Effort;
  /** Model calls allowed in this run; default 100. */
  maxTurns?: number;
  /** The workspace: tools resolve relative paths against it. */
  cwd: string;
  /** The complete tool set. Default: the built-in tools, Task (sub-agents), Skill (when there are
   * skills) and the tools of the configured MCP servers. */
  tools?: Tool[];
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
  /** The user's home directory (`~/.claude/...`); default os.homedir(). */
  home?: string;
  /** Managed settings file; default /etc/claude-code/managed-settings.json. */
  managedSettingsPath?: string;
  /** Paths the sandbox hides from commands (when the settings turn it on), besides the settings'
   * denyRead, but for the working directories inside them: a host's other workspaces and its
   * store. The file tools never reach them either, but for `cwd` and its temporary directory,
   * whether the sandbox is on or not (PermissionContext.hostHidden). */
  sandboxHidden?: readonly string[];
  /** Environment of the run: model selection and keys, `${VAR}` in .mcp.json, and the base of the
   * environment of Bash, hooks and MCP servers (the settings' `env` is laid over it). Default
   * process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Plugin directories to load for this run, besides the installed plugins the settings enable
   * (Claude Code's --plugin-dir); relative to `cwd`. */
  pluginDirs?: readonly string[];
  /** MCP servers of this run (Claude Code's --mcp-config): each group the `mcpServers` object of
   * one `.mcp.json`-shaped value, with where it came from for messages (a file, or the flag for
   * JSON given inline). They are the user's own: they start without approval, and win over servers
   * of the same name elsewhere; the managed MCP policy and managed-mcp.json still hold. */
  mcpConfig?: readonly { file: string; servers: unknown }[];
  /** Approvals of the project's `.mcp.json` servers that the run's host gives (a server's API, for
   * the session whose caller connected them), over those of the user's settings: each counts for
   * its entry exactly as it was approved (mcp/granted.ts), never for one changed since. */
  mcpApprovals?: readonly { name: string; entry: string }[];
  /** Tools the program driving the run registered (the Open Harness API's tools.register): offered
   * to the main thread's model after the others, unless the run brings its own `tools`; each call's
   * input POSTed to the tool's URL (tools/registered/registered-tool.ts). Permission rules name them
   * as any tool: a call asks unless an allow rule matches. */
  registeredTools?: readonly RegisteredTool[];
  /** Hooks of the program driving the run (the Agent SDK's hook callbacks): they run after the
   * settings' own hooks of the same event, with the same matcher rules, whatever the settings say of
   * hooks (they are no file's). */
  hooks?: HooksConfig;
  /** MCP servers that live in the program driving the run (the Agent SDK's createSdkMcpServer),
   * by name, and the relay their messages go through. They start with the others, over any of the
   * same name, held by name to the settings' deniedMcpServers and allowedMcpServers (a blocked one
   * is said and left out); the machine's managed-mcp.json, about what is started here, does not
   * govern them. */
  sdkMcpServers?: { names: readonly string[]; relay: McpRelay };
  /** Permission updates of earlier approvals of the session (their `updatedPermissions`), applied
   * over the settings' and the run's own rules, in order. */
  permissionUpdates?: readonly PermissionUpdate[];
  /** Claude Code's --allow-dangerously-skip-permissions (the Agent SDK's
   * allowDangerouslySkipPermissions): an approval's or a hook's setMode may switch the run to
   * bypassPermissions, unless the settings forbid it. A run that starts in bypassPermissions may
   * anyway. */
  allowBypassPermissions?: boolean;
  /** Told the permission updates of an approval or of a PermissionRequest hook's allow, in any agent
   * of the run, as they are applied: a host keeps them for the session's later runs
   * (`permissionUpdates`). */
  onPermissionUpdates?: (updates: readonly PermissionUpdate[]) => void;
  /** Only the servers of `mcpConfig` (Claude Code's --strict-mcp-config): none of `.mcp.json`,
   * `~/.claude.json`, the settings or plugins. */
  strictMcpConfig?: boolean;
  /** Settings of this run (Claude Code's --settings), above the local settings and below the
   * managed ones, trusted as the user's own; `file` names them in messages. */
  flagSettings?: { file: string; settings: unknown };
  /** The policy tier the program that starts the run puts on it (the Agent SDK's managedSettings):
   * what restricts of it holds as the managed settings' own, or beneath a managed-settings.json
   * that takes it (settings/parent-tier.ts); `file` names it in messages. */
  managedSettings?: { file: string; settings: unknown };
  /** The settings files read (Claude Code's --setting-sources); default all three. The managed
   * settings and `flagSettings` are read whatever it says. */
  settingSources?: readonly SettingsFileScope[];
  /** Directories besides `cwd` the file tools reach as they reach the project (Claude Code's
   * --add-dir), on top of the settings' permissions.additionalDirectories; relative to `cwd`. */
  additionalDirectories?: readonly string[];
  /** The built-in tools offered to the model, by name (Claude Code's --tools; Agent is Task);
   * default all. MCP servers' tools are not built-in and stay. */
  builtinTools?: readonly string[];
  /** Where `.claude/` project configuration lives; default the nearest directory above cwd (or cwd)
   * that holds `.git`, else cwd. */
  projectRoot?: string;
  /** Wins over the settings' defaultMode; default "default". */
  permissionMode?: PermissionMode;
  /** Permission rules of this run on top of the settings' (Claude Code's --allowedTools and
   * --disallowedTools), in the settings' syntax; `/path` patterns start at the project root. A rule
   * that does not parse is reported as a notice and left out. (The policy a program puts on the run
   * is `managedSettings`.) */
  rules?: { allow?: readonly string[]; deny?: readonly string[] };
  /** Asked when a tool call's permission decision is "ask". Without it such calls are denied with
   * an error that says how to allow them. */
  approve?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** What outlives a run: tool state (background shells, files read) and MCP servers. Without it
   * the run makes its own and disposes of it at the end. */
  resources?: AgentResources;
  /** False skips settings, memory, skills, commands, agents and MCP discovery entirely: the loop
   * runs with the given or built-in tools, no hooks but the program's own (`hooks`), no rules and
   * the given permission mode.
   * Default true. */
  loadUserConfig?: boolean;
  /** Messages the user sends while the run is in flight. Those waiting are taken before each model
   * call and added to the conversation (with the tool results the model is about to read), each
   * announced with a user.message event; a run about to end goes on when some are waiting. */
  steering?: { take(): string[] };
  /** Subscribes to configuration changes sent while the run is in flight; each applies from the
   * next model call (the mode also to tool calls checked after it). Returns the unsubscribe. */
  onConfigure?: (listener: (change: RunConfigureChange) => void) => () => void;
  /** Subscribes to requests to stop the sub-agent of one of the run's Task calls (by the call's id),
   * the run going on: the call then answers that it was interrupted. The listener says whether it
   * had that sub-agent running. Returns the unsubscribe. */
  onStopAgent?: (listener: (toolUseId: string) => boolean) => () => void;
  /** Subscribes to requests to move a running Bash call of the run (a sub-agent's too) to the
   * background, by the call's id, or every running one without an id (Claude Code's Ctrl+B): the
   * command goes on as a background shell and the call answers at once with the shell's id. The
   * listener (one per running Bash call) says whether it moved its call. Returns the unsubscribe. */
  onBackground?: (listener: (toolUseId: string | undefined) => boolean) => () => void;
  /** Subscribes to requests to stop one of the conversation's background shells by its id while the
   * run goes on (a client's kill-shell, /tasks kill's at any time); the listener says what it did.
   * The run reports the shells as shells.changed (as it starts, and as they change) either way.
   * Returns the unsubscribe. */
  onKillShell?: (listener: (shellId: string) => KillShellAnswer) => () => void;
  /** Subscribes to todo lists set while the run is in flight (the user changed its plan): each
   * becomes the list TodoWrite keeps at once, and the model reads it with its next request. The
   * listener says it took the list. A sub-agent takes none. Returns the unsubscribe. */
  onTodosSet?: (listener: (todos: TodoItem[]) => boolean) => () => void;
  /** The conversation's id, as hooks see it (`session_id`); default an id per resources. */
  sessionId?: string;
  /** Set by the sub-agent spawner on a sub-agent's run: its id and type, for its hooks. */
  agent?: { id: string; type: string };
  /** Set by the sub-agent spawner on a forked skill's sub-agent: the images that go with its task,
   * the skill's hooks and whether it asks for thinking. */
  forkedSkill?: ForkedSkillTask;
  /** Awaited before anything in the run (or its sub-agents) may change files: a tool that is not
   * `readOnly`, a hook's command. It may be called more than once, and concurrently; a rejection
   * does not stop the run. A runner takes its file checkpoint there, so that a run that only reads
   * and answers costs none. `toolUseId`: the tool call about to run (absent for a hook's command). */
  beforeChanges?: (toolUseId?: string) => Promise<void>;
  /** Told once the run has loaded its configuration and chosen its model, before the prompt's
   * hooks and the first model call (`harness run`'s stream-json opens with it). Not told when the
   * run ends before (a bad model, a slash command answered without the model). */
  onReady?: (info: RunReadyInfo) => void;
  /** Sub-agents given with the run (Claude Code's --agents): over every agent file of the same name. */
  agents?: readonly AgentDefinition[];
  /** The agent the main thread runs as (Claude Code's --agent; default the settings' `agent`): its
   * prompt in place of the built-in one, its tools and its model (the run's `model` still wins). A
   * name no agent has ends the run with an error before any model call. */
  mainAgent?: string;
  /** The run stops (stopReason "max_budget") once what it has cost reaches this many US dollars,
   * checked before each model call of the main agent and of its sub-agents, against what all of
   * them have spent so far (a sub-agent that stops for it says so in its Task result). */
  maxBudgetUsd?: number;
  /** What the session's earlier runs cost (the turns before this one of `harness run
   * --input-format stream-json`): counted against maxBudgetUsd with this run's own cost. */
  budgetSpentUsd?: number;
  /** What the conversation spent before, in runs of other processes (stored with it): /cost and the
   * result's `spent` count on from it. Taken by the first run on its `resources` only (later ones
   * share what those counted). */
  spentBefore?: ConversationSpent;
  /** The model a turn is sent to again when the run's model answers that it is overloaded (after
   * the provider's own retries); the run goes on with it. */
  fallbackModel?: string;
  /** Told each event of the run's model calls as it streams, before the run's own events for it
   * (`harness run --output-format stream-json`: a reply's line as soon as it is complete, and
   * --include-partial-messages). `from` is absent for the main agent's calls; for a Task call's
   * sub-agent, it names the sub-agent as its events do. An agent hook's calls are not told. */
  onModelEvent?: (event: ModelEvent, from?: ModelEventSource) => void;
  /** Told as each hook of the run starts and ends, its sub-agents' among them (`harness run
   * --include-hook-events`). */
  onHookEvent?: HookObserver;
  /** The run's answer must be JSON matching this schema (Claude Code's --json-schema; check it
   * first with outputSchemaProblem): the main agent gets a StructuredOutput tool to give it with,
   * and is reminded when it ends without. */
  outputSchema?: Record<string, unknown>;
  /** The MCP tool (`mcp__server__tool`) that calls needing approval are asked of, in place of
   * `approve` (Claude Code's --permission-prompt-tool; see harness/permissions/prompt-tool.ts). A run
   * without that tool fails before its first model call. */
  permissionPromptTool?: string;
};

/** The sub-agent a model event comes from: its id and the Task call that started it. */
export type ModelEventSource = { agentId: string; parentToolUseId: string };

/** What a run works with, as Claude Code's stream-json `init` message lists it. */
export type RunReadyInfo = {
  model: string;
  permissionMode: PermissionMode;
  /** Every tool the model may call, deferred ones included. */
  tools: string[];
  mcpServers: { name: string; status: "connected" | "failed" | "closed" }[];
  /** What the user may type after "/": built-ins, custom commands, skills, MCP prompts. */
  slashCommands: string[];
  /** The argument hints (front matter `argument-hint`) of the custom commands and skills that have
   * one, by name (a command's over a skill's of its name, as a run takes the command). */
  argumentHints: Record<string, string>;
  agents: string[];
  skills: string[];
  /** The output style in use ("default" without one). */
  outputStyle: string;
  /** The plugins that loaded, and their directories. */
  plugins: { name: string; path: string }[];
  /** The run may be switched to bypassPermissions (see bypassRefusal), as its settings and start
   * left it: the settings forbid it (disableBypassPermissionsMode), it started able to. */
  bypassDisabled: boolean;
  bypassAvailable: boolean;
};

/** "error" also when a hook stopped the run (UserPromptSubmit blocked the prompt, or a hook answered
 * `continue: false`): `errorMessage` is then the hook's reason. */
export type AgentStopReason = "end_turn" | "max_turns" | "max_budget" | "aborted" | "error";

export type RunAgentResult = {
  stopReason: AgentStopReason;
  /** The text of the final assistant reply (for /help and /compact: their text). */
  result: string;
  /** `history` plus this run's messages. Always a valid conversation: every tool_use has its
   * tool_result, and no message is empty, so it can be sent back as the next run's history. */
  transcript: TranscriptEntry[];
  /** Everything the run paid for: its own model calls, compaction summaries and sub-agents. */
  usage: Usage;
  /** Usage of each model call the run made itself (turns of the loop and compaction summaries), in
   * order, each with its cost when the model's price is known. Sub-agents' calls are only in
   * `usage`. */
  turns: Usage[];
  /** The model the run used (after settings and slash commands); "" when none could be chosen. */
  model: string;
  /** Every model call the run paid for (its own, its sub-agents', its hooks' and compactions'),
   * summed by the model that made it, with its cost when the model's price is known. A sub-agent's
   * result carries its whole run's so far. */
  modelUsage: Record<string, Usage>;
  /** Milliseconds the run (sub-agents included) spent waiting for its model calls. */
  apiMs: number;
  /** What the conversation has spent, this run included: to store with it (see `spentBefore`). */
  spent?: ConversationSpent;
  errorMessage?: string;
  /** A run that ended because a model request failed for good (stop reason error): that failure. */
  modelFailure?: ModelFailure;
  /** With an output schema: the answer that matched it (end_turn), or, set to true in
   * `structuredOutputMissed`, that the model missed it too often (error). */
  structuredOutput?: Record<string, unknown>;
  structuredOutputMissed?: true;
};

/** A change of configuration for the run in flight. */
export type RunConfigureChange = {
  permissionMode?: PermissionMode;
  model?: string;
  maxTurns?: number;
  /** Empty: back to the default. */
  systemPrompt?: string;
  effort?: "low" | "medium" | "high" | "max";
};
