// What one run works with once its configuration is loaded: model and provider, tools, the
// permission context, hooks, and the fixed parts of every request (system prompt, environment).
import type { ModelMessage, Provider } from "@harness/llm";
import { environmentBlock } from "../context/environment.ts";
import { createNestedMemory, type NestedMemory } from "../context/nested-memory.ts";
import type { ToolRunContext } from "../loop/execute-tool-calls.ts";
import { withRules } from "../permissions/parse-rule.ts";
import { decide } from "../permissions/decide.ts";
import { screenUpdates } from "../permissions/screen-updates.ts";
import { persistPermissionUpdates } from "../settings/persist-updates.ts";
import { deniedFileFilter } from "../permissions/path-access.ts";
import type { PermissionContext, PermissionMode } from "../permissions/types.ts";
import { isReallyInWorkingDirectories } from "../permissions/paths.ts";
import { createShellCwd, maintainsProjectCwd, type ShellCwd, type ShellSlot } from "../tools/shell/cwd.ts";
import { skillsRegistry } from "../skills/registry.ts";
import { SKILL_TOOL_NAME, skillTool } from "../skills/skill-tool.ts";
import type { Skill } from "../skills/types.ts";
import type { SubagentSpawner } from "../subagents/task-tool.ts";
import { workspaceEnvDir } from "../sandbox/tmp-dir.ts";
import { sessionEnvFile } from "../tools/shell/session-env.ts";
import { createToolRegistry, type ToolRegistry } from "../tool-registry/registry.ts";
import { transcriptFile } from "../hooks/transcript-file.ts";
import { toolUsesOf } from "../loop/transcript.ts";
import type { RunAgentOptions, RunAgentResult, Tool, ToolContext } from "../types.ts";
import { asksToThink } from "../ultrathink.ts";
import { addUsage, emptyUsage } from "../loop/usage.ts";
import type { Usage } from "@harness/protocol";
import { asSubagentHooks, mergeHooksConfigs } from "../hooks/parse-config.ts";
import type { HookEvaluator, HookObserver, HooksConfig } from "../hooks/types.ts";
import { hookEvaluator, type HookAgentRequest } from "./hooks/evaluator.ts";
import { expandCommandText } from "./commands/text.ts";
import { createHookHost, type HookHost } from "./hooks/hooks.ts";
import { deliverHookReport, resourceInternals, shownText, type AgentResources, type NoticeSink } from "./resources.ts";
import { recordSideCall, type RunState } from "./run-state.ts";
import { runWebSearch } from "./setup/run-web-search.ts";
import type { RunSetup } from "./setup/setup.ts";
import { mainAgentTools } from "./agents/main-agent.ts";
import type { AgentDefinition } from "../subagents/types.ts";
import { createToolGate } from "./tool-gate.ts";
import { applyToRun, type RunPermissions } from "./permissions/run-permissions.ts";
import { structuredOutput, type StructuredOutput } from "./structured-output.ts";
import { offeredTools } from "./request.ts";
import { defaultTools, offered } from "./default-tools.ts";
import { registeredTool } from "../tools/registered/registered-tool.ts";

export const DEFAULT_MAX_TURNS = 100;

export type RunContext = {
  options: RunAgentOptions;
  resources: AgentResources;
  setup: RunSetup;
  model: string;
  provider: Provider;
  /** Every tool of the run, deferred ones included. */
  tools: Tool[];
  registry: ToolRegistry;
  /** The tools a tool-wide deny rule keeps from the model (see offered). The calls the run makes
   * itself (a command's `!` commands, the files it names) still find them, so that the gate
   * refuses them with that rule, not as unknown tools. */
  withheld: Tool[];
  /** The main run's conversation so far (for the hooks' transcript_path). */
  conversation?: () => readonly ModelMessage[];
  permissions: PermissionContext;
  /** The permission contexts of the run's agents alive at once, `permissions` among them while its
   * agent runs: an approval's updates reach them all (see applyToRun). */
  runPermissions: RunPermissions;
  hooks: HookHost;
  nested?: NestedMemory;
  systemPrompt: string;
  environment: string;
  /** The skills registry for the system prompt ("" without the Skill tool). */
  skills: string;
  /** A sub-agent's run: SubagentStop instead of Stop, no prompt hooks, no sub-agents of its own. */
  subagent: boolean;
  /** Where this agent's Bash commands start: the main agent's is the conversation's, kept across
   * runs; a sub-agent's starts where its parent's is and moves on its own. */
  shell: ShellCwd;
  /** The run asks for thinking: "ultrathink" in what the user typed, or in the text of the command
   * or skill it expands to (set once expanded), or of a skill the model loads; for a sub-agent,
   * only in its forked skill's text or a skill it loads (it does not inherit the main run's). */
  asksToThink?: boolean;
  maxTurns: number;
  notice: NoticeSink;
  /** Runs a Task call's sub-agent; absent where the run has none. */
  spawner?: SubagentSpawner;
  /** Runs an agent hook's read-only sub-agent (see runHookAgent in loop/run-agent.ts). */
  hookAgent?: HookAgentRunner;
  /** The main run's answer to an output schema (RunAgentOptions.outputSchema). */
  structured?: StructuredOutput;
};

/** Runs an agent hook's sub-agent on `parent`'s configuration. */
export type HookAgentRunner = (parent: RunContext, request: HookAgentRequest) => Promise<RunAgentResult>;

export type MainRunInput = {
  options: RunAgentOptions;
  resources: AgentResources;
  setup: RunSetup;
  model: string;
  provider: Provider;
  /** Tools a slash command may use without asking (its allowed-tools). */
  allowedTools?: readonly string[];
  /** The run's conversation so far (for the hooks' transcript_path). */
  conversation?: () => readonly ModelMessage[];
  /** Counts a model call the run makes besides its turns (a prompt hook's) in its usage. */
  record: (model: string, usage: Usage) => void;
  hookAgent?: HookAgentRunner;
  notice: NoticeSink;
  /** The agent the main thread runs as: its tools (see mainAgentTools) and its hooks. */
  agent?: AgentDefinition;
};

export function mainRunContext(input: MainRunInput, spawnerFor: (ctx: RunContext) => SubagentSpawner): RunContext {
  const { allowedTools, record, agent, ...base } = input;
  const { options, setup } = base;
  const permissions = withAllowedTools(setup.permissions, allowedTools ?? [], setup.projectRoot, input.notice);
  // A skill's allowed-tools hold once it is active, however it was invoked (the user's /name, or
  // the model's Skill call), as in Claude Code: the tool gate holds this object, so the rules are
  // added to it in place.
  // Its hooks join the conversation's then too, for the rest of the run (a forked skill's work is
  // its sub-agent's, whose hooks they join instead).
  // "ultrathink" in a skill the model loads turns thinking on for the rest of the run, as typed
  // (a forked one's asks for its sub-agent's: see ForkedSkillTask).
  const activate = (skill: Skill) => {
    if (skill.hooks && !skill.fork) ctx.hooks.add(skill.hooks);
    if (!skill.fork && asksToThink(skill.body)) ctx.asksToThink = true;
    return grantSkill(permissions, skill, setup.projectRoot, input.notice);
  };
  const structured = options.outputSchema ? structuredOutput(options.outputSchema) : undefined;
  const all = mainAgentTools(options.tools ?? [...defaultTools(setup, options, activate), ...(options.registeredTools ?? []).map(registeredTool)], agent, setup.agents);
  const { tools, withheld } = offered(structured ? [...all, structured.tool] : all, permissions);
  const ctx: RunContext = {
    ...base,
    tools,
    registry: createToolRegistry(tools, { env: options.env ?? process.env }),
    withheld,
    permissions,
    runPermissions: new Set([permissions]),
    hooks: hooksFor(input.resources, setup, options, () => permissions.mode, input.notice, {
      ...(input.conversation && { conversation: input.conversation }),
      evaluate: evaluatorFor(() => ctx, record),
      model: () => ctx.model,
      // The main thread's agent's hooks run beside the settings', as in Claude Code.
      ...(agent?.hooks && { own: agent.hooks }),
    }),
    ...(setup.loaded && setup.nestedMemory !== false && { nested: nestedMemoryOf(setup) }),
    systemPrompt: options.systemPrompt || setup.basePrompt,
    environment: environmentBlock({ cwd: setup.cwd, model: input.model, ...(setup.git && { git: setup.git }), additionalDirectories: setup.permissions.additionalDirectories }),
    skills: tools.some((tool) => tool.name === SKILL_TOOL_NAME) ? skillsRegistry(setup.skills) : "",
    subagent: false,
    shell: shellOf(setup, () => ctx.permissions, base.resources.toolState.shell),
    maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS,
    ...(structured && { structured }),
  };
  if (setup.loaded) ctx.spawner = spawnerFor(ctx);
  return ctx;
}

/** A sub-agent's run shares its parent's configuration; the spawner has set its prompt, tools,
 * model, system prompt (environment included) and permission mode in `options`. */
export function subagentRunContext(parent: RunContext, options: RunAgentOptions, notice: NoticeSink, record: (model: string, usage: Usage) => void): RunContext {
  const fileHooks = options.agent ? parent.setup.agents.find((agent) => agent.name === options.agent!.type)?.hooks : undefined;
  const fromFile = fileHooks && asSubagentHooks(fileHooks);
  const fromSkill = options.forkedSkill?.hooks;
  const own = fromFile && fromSkill ? mergeHooksConfigs([fromFile, fromSkill]) : (fromFile ?? fromSkill);
  const wanted = options.permissionMode ?? parent.permissions.mode;
  const mode = wanted === "bypassPermissions" && parent.permissions.bypassDisabled ? parent.permissions.mode : wanted;
  const permissions = { ...parent.permissions, mode, subagent: true };
  // A skill the sub-agent invokes grants its allowed-tools to the sub-agent, not to its parent.
  // It has no sub-agents of its own, so a skill it loads (forked or not) works in its
  // conversation: the skill's hooks join its hooks, and "ultrathink" in it turns its thinking on.
  const onSkill = (skill: Skill) => {
    if (skill.hooks) ctx.hooks.add(asSubagentHooks(skill.hooks));
    if (asksToThink(skill.body)) ctx.asksToThink = true;
    return grantSkill(permissions, skill, parent.setup.projectRoot, notice);
  };
  const { tools, withheld } = offered(
    (options.tools ?? []).map((tool) => (tool.name === SKILL_TOOL_NAME ? skillTool(parent.setup.skills, onSkill, [], parent.setup.sessionId) : tool)),
    permissions,
  );
  const ctx: RunContext = {
    options,
    resources: parent.resources,
    setup: parent.setup,
    model: options.model ?? parent.model,
    provider: options.provider ?? parent.provider,
    tools,
    registry: createToolRegistry(tools, { env: options.env ?? process.env }),
    withheld,
    permissions,
    // Joined while it runs (see runSubagent): a hook's agent, which asks no one, stays out.
    runPermissions: parent.runPermissions,
    hooks: hooksFor(parent.resources, parent.setup, options, () => permissions.mode, notice, {
      ...(parent.conversation && { conversation: parent.conversation }),
      evaluate: evaluatorFor(() => ctx, record),
      ...(own && { own }),
    }),
    ...(parent.conversation && { conversation: parent.conversation }),
    // A conversation of its own: the memory files below cwd come to it afresh.
    ...(parent.nested && { nested: nestedMemoryOf(parent.setup) }),
    systemPrompt: options.systemPrompt ?? parent.systemPrompt,
    environment: "",
    skills: tools.some((tool) => tool.name === SKILL_TOOL_NAME) ? skillsRegistry(parent.setup.skills) : "",
    subagent: true,
    shell: shellOf(parent.setup, () => ctx.permissions, subagentSlot(parent)),
    ...(options.forkedSkill?.asksToThink && { asksToThink: true }),
    maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS,
    notice,
    ...(parent.hookAgent && { hookAgent: parent.hookAgent }),
  };
  return ctx;
}

/** The shell of an agent whose directory `slot` keeps: it may move within the run's working
 * directories as the permissions have them when a command ends. */
function shellOf(setup: RunSetup, permissions: () => PermissionContext, slot: ShellSlot): ShellCwd {
  const env = setup.harnessEnv ?? setup.childEnv ?? process.env;
  return createShellCwd({ project: setup.cwd, slot, allowed: (real) => isReallyInWorkingDirectories(real, permissions()), maintain: maintainsProjectCwd(env) });
}

function subagentSlot(parent: RunContext): ShellSlot {
  const { dir } = parent.shell.start();
  return dir === parent.setup.cwd ? {} : { dir };
}

/** The model behind the prompt and agent hooks of the run `ctx()` (read when a hook asks: the
 * context is built by then, and a configure may have changed its model). */
function evaluatorFor(ctx: () => RunContext, record: (model: string, usage: Usage) => void): HookEvaluator {
  return hookEvaluator({
    get options() {
      return ctx().options;
    },
    current: () => ({ model: ctx().model, provider: ctx().provider }),
    record,
    runAgent: (request) => {
      const run = ctx();
      if (!run.hookAgent) return Promise.resolve(noHookAgent(run.model));
      return run.hookAgent(run, request);
    },
  });
}

function noHookAgent(model: string): RunAgentResult {
  return { stopReason: "error", result: "", transcript: [], usage: emptyUsage(), turns: [], model, modelUsage: {}, apiMs: 0, errorMessage: "agent hooks cannot run here" };
}

/** The memory files and rules a run's tools bring in as they work (see createNestedMemory), with
 * the same hold on imports from outside the project as the memory loaded at the start. */
function nestedMemoryOf(setup: RunSetup): NestedMemory {
  return createNestedMemory({
    cwd: setup.cwd,
    home: setup.home,
    loaded: setup.memory,
    ...(setup.pathRules && { pathRules: setup.pathRules }),
    project: { root: setup.projectRoot, externalImportsApproved: setup.externalImportsApproved === true },
    ...(setup.settings.claudeMdExcludes && { excludes: setup.settings.claudeMdExcludes }),
  });
}

/** A rule of allowed-tools that does not parse is said and left out: the calls it was meant to
 * allow ask, and the user should know why. */
function withAllowedTools(permissions: PermissionContext, allowed: readonly string[], root: string, notice: NoticeSink): PermissionContext {
  if (permissions.managedRulesOnly) return permissions;
  return granted(permissions, allowed, { root, source: "the slash command's allowed-tools" }, notice);
}

/** Adds `skill`'s allowed-tools to `permissions` in place (a tool gate holds that object). Returns
 * what takes them back: a forked skill's hold only while its `!` commands and its sub-agent run,
 * and the conversation does not keep them, as in Claude Code. */
export function grantSkill(permissions: PermissionContext, skill: Skill, root: string, notice: NoticeSink): () => void {
  if (permissions.managedRulesOnly) return () => {};
  const before = new Set(permissions.rules.allow);
  permissions.rules = granted(permissions, skill.allowedTools ?? [], { root, source: `the skill ${skill.name}'s allowed-tools` }, notice).rules;
  const added = permissions.rules.allow.filter((rule) => !before.has(rule));
  return () => {
    if (added.length > 0) permissions.rules = { ...permissions.rules, allow: permissions.rules.allow.filter((rule) => !added.includes(rule)) };
  };
}

function granted(permissions: PermissionContext, allowed: readonly string[], origin: { root: string; source: string }, notice: NoticeSink): PermissionContext {
  const { permissions: next, errors } = withRules(permissions, "allow", allowed, origin);
  for (const { text, error } of errors) notice("warning", `The rule "${text}" of ${origin.source} is left out: ${error}`);
  return next;
}

/** What a run's hooks may know besides its configuration: its conversation (transcript_path), the
 * model behind prompt and agent hooks, the run's model (SessionStart), and the hooks of the
 * sub-agent they run in (its agent file's, after the settings'). */
export type HookHostExtras = {
  conversation?: () => readonly ModelMessage[];
  evaluate?: HookEvaluator;
  model?: () => string;
  own?: HooksConfig;
};

export function hooksFor(resources: AgentResources, setup: RunSetup, options: RunAgentOptions, mode: () => PermissionMode, notice: NoticeSink, extras: HookHostExtras = {}): HookHost {
  const { conversation, evaluate, model, own } = extras;
  const inner = resourceInternals(resources);
  const sessionId = options.sessionId ?? resources.sessionId;
  return createHookHost({
    ...(conversation && { transcriptPath: () => (inner.transcript ??= transcriptFile(sessionId)).sync(conversation()) }),
    config: own ? mergeHooksConfigs([setup.hooks, own]) : setup.hooks,
    sessionEnvFile: () => sessionEnvFile(resources.toolState, workspaceEnvDir(setup.cwd)),
    sessionId,
    projectDir: setup.projectRoot,
    cwd: setup.cwd,
    mode,
    ...(setup.childEnv && { env: setup.childEnv }),
    ...(setup.harnessEnv && { networkEnv: setup.harnessEnv }),
    ...(options.beforeChanges && { beforeCommands: options.beforeChanges }),
    ...(options.agent && { agent: options.agent }),
    ...(evaluate && { evaluate }),
    ...(model && { model }),
    onceFired: inner.onceHooks,
    background: { signal: inner.lifetime.signal, done: (report) => deliverHookReport(resources, report) },
    ...(options.onHookEvent && { observe: shownHooks(resources, options.onHookEvent) }),
    notice,
  });
}

/** `observer`, told each hook's run with its command shown as the run shows text (the secrets it
 * knows, its settings' env among them, as ***): an observer may pass it on to the user's clients. */
function shownHooks(resources: AgentResources, observer: HookObserver): HookObserver {
  return {
    started: (hook) => observer.started(hook),
    ended: (hook, run) => observer.ended(hook, { ...run, command: shownText(resources, run.command) }),
  };
}

/** Deferred tools the conversation has already called stay loaded, so a resumed conversation does
 * not have to search for them again. */
export function restoreLoadedTools(registry: ToolRegistry, messages: readonly ModelMessage[]): void {
  const names: string[] = [];
  for (const message of messages) if (message.role === "assistant") for (const use of toolUsesOf(message)) names.push(use.name);
  if (names.length > 0) registry.markLoaded(names);
}

/** How this run's tool calls are executed: looked up in the registry, checked by the gate, and run
 * with the conversation's tool state, the settings' environment and (for Task) the sub-agent
 * spawner, whose usage joins the run's. */
export function toolRunFor(ctx: RunContext, state: RunState): ToolRunContext {
  const { registry, setup } = ctx;
  const env = setup.childEnv;
  const networkEnv = setup.harnessEnv;
  const spawner = ctx.spawner;
  const planMode = ctx.subagent ? undefined : planModeOf(ctx, state);
  const webSearch = runWebSearch(ctx, (model, usage) => recordSideCall(state, model, usage));
  return {
    tools: { get: (name) => registry.get(name), keys: () => offeredTools(ctx).map((tool) => tool.name) },
    cwd: setup.cwd,
    // As in Claude Code, the file tools' relative paths start where the agent's shell is.
    workingDir: () => ctx.shell.current(),
    signal: ctx.options.signal,
    emit: state.emit,
    ...(ctx.options.beforeChanges && { beforeChanges: ctx.options.beforeChanges }),
    // A sub-agent's options carry its parent's: only the main agent's Task calls are stopped alone.
    ...(ctx.options.onStopAgent && !ctx.subagent && { onStopAgent: ctx.options.onStopAgent }),
    gate: createToolGate({
      hooks: ctx.hooks,
      permissions: ctx.permissions,
      ...(ctx.options.approve && { approve: ctx.options.approve }),
      // A sub-agent keeps the mode it started with (its definition may fix one): the conversation's
      // new mode answers only the main agent's waiting calls.
      ...(ctx.options.onConfigure && !ctx.subagent && { onConfigure: ctx.options.onConfigure }),
      ...(ctx.nested && { nested: ctx.nested }),
      notice: ctx.notice,
      stop: (reason) => {
        state.stopRequest ??= reason;
      },
      ...(ctx.options.permissionPromptTool !== undefined && { approver: `the permission prompt tool ${ctx.options.permissionPromptTool}` }),
      // What may not be applied is left out before anything is: it is neither kept in a settings
      // file nor handed on for the session's later runs.
      updatePermissions: (updates, by) => {
        const where = { cwd: ctx.setup.cwd, home: ctx.setup.home, projectRoot: ctx.setup.projectRoot };
        const { kept, read, refused } = screenUpdates(updates, ctx.permissions, where, by);
        const errors = applyToRun(ctx.permissions, ctx.runPermissions, read, where);
        for (const message of [...refused, ...errors, ...persistPermissionUpdates(kept, where)]) ctx.notice("warning", message);
        if (kept.length > 0) ctx.options.onPermissionUpdates?.(kept);
      },
      track: (work) => {
        state.background.push(work);
      },
    }),
    // The filters are made per call: a deny rule an approval adds mid-run, in this agent or another
    // of the run, holds for the searches and fetches after it.
    bindContext: (base) => {
      const onBackground = ctx.options.onBackground;
      const denied = deniedFileFilter(ctx.permissions);
      const deniedUrl = deniedUrlFilter(ctx.permissions);
      const extra = ctx.options.toolEnv?.(base.toolUseId);
      const callEnv = extra ? { ...(env ?? definedEnv(process.env)), ...extra } : env;
      const bound: ToolContext = {
        ...base,
        state: ctx.resources.toolState,
        shell: ctx.shell,
        ...(callEnv && { env: callEnv }),
        ...(networkEnv && { networkEnv }),
        ...(denied && { denied }),
        ...(deniedUrl && { deniedUrl }),
        ...(planMode && { planMode }),
        ...(webSearch && { webSearch }),
        ...(ctx.permissions.sandbox && { sandbox: ctx.permissions.sandbox }),
        expandPrompt: (prompt, shell) => expandCommandText(ctx, state, prompt, shell),
        ...(state.agents && { backgroundAgents: state.agents }),
        ...(onBackground && { onBackground: (listener: () => boolean) => onBackground((id) => (id === undefined || id === base.toolUseId) && listener()) }),
      };
      // A background agent's usage joins the run's as it ends (see startBackgroundAgents).
      if (spawner) {
        bound.spawnSubagent = async (request) => {
          const output = await spawner(request, bound);
          if (output.usage) addUsage(state.usage, output.usage);
          return output;
        };
      }
      return bound;
    },
  };
}

/** The variables of `env` that are set. */
function definedEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Why the deny rules keep WebFetch from a URL, when any WebFetch deny rule is set (a redirect is
 * then checked as a call of its own would be). */
function deniedUrlFilter(permissions: PermissionContext): ((url: string) => string | undefined) | undefined {
  if (!permissions.rules.deny.some((rule) => rule.tool === "WebFetch")) return undefined;
  return (url) => {
    const decision = decide({ name: "WebFetch", input: { url, prompt: "" } }, permissions);
    return decision.behavior === "deny" ? decision.reason : undefined;
  };
}

/** The main run's plan mode, for ExitPlanMode. Leaving it goes to the default mode: edits and
 * commands ask again, as they did before plan mode. */
function planModeOf(ctx: RunContext, state: RunState): NonNullable<ToolContext["planMode"]> {
  return {
    active: () => ctx.permissions.mode === "plan",
    exit: () => {
      ctx.permissions.mode = "default";
      state.emit({ type: "mode.changed", permissionMode: "default" });
    },
  };
}
