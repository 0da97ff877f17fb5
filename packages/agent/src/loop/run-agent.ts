// The agent loop: call the model, run the tools it asks for, send the results back, repeat until
// it answers without tool calls. Plain functions: runAgent → streamTurn → executeToolCalls. What a
// run reads from its configuration (settings, hooks, memory, skills, MCP…) is loaded first by
// harness/setup/setup.ts; what happens around each tool call is harness/tool-gate.ts.
import { setImmediate as nextTurn } from "node:timers/promises";
import type { ModelMessage, ModelRequest } from "@harness/llm";
import { secretValuesOf } from "@harness/llm/hidden-secrets";
import { networkProblem } from "@harness/llm/proxy-env";
import { releaseArguments } from "../commands/shell-syntax.ts";
import { contextTokensOf } from "../compaction/context-window.ts";
import { executeToolCalls } from "./execute-tool-calls.ts";
import { expandCommandText } from "../harness/commands/text.ts";
import type { ExpandedText } from "../harness/mentions/expanded-text.ts";
import { attachMentionedResources } from "../harness/mentions/mcp-resources.ts";
import { attachMentions } from "../harness/mentions/mentions.ts";
import { forkedSkillAnswer } from "../harness/commands/forked-skill.ts";
import { readyInfo } from "../harness/ready-info.ts";
import { withHelperKey } from "../harness/model/api-key-helper.ts";
import { withAwsCommands } from "../harness/model/aws-commands.ts";
import { compactConversation, contextLimitReached, needsCompaction } from "../harness/compaction.ts";
import { refuseMode, watchConfigure } from "../harness/configure.ts";
import { withKeyHint } from "../harness/model/refused-key.ts";
import { finish, reply, withPrompt } from "../harness/finish.ts";
import { chooseModel, pickModel, providerFor } from "../harness/model/model.ts";
import { applyMainAgentMode, asMainAgent, mainAgentOf } from "../harness/agents/main-agent.ts";
import { budgetReached, fellBack } from "../harness/setup/run-limits.ts";
import { AGENT_HOOK_SYSTEM_PROMPT, type HookAgentRequest } from "../harness/hooks/evaluator.ts";
import { NO_HOOK_HOST } from "../harness/hooks/hooks.ts";
import { environmentBlock } from "../context/environment.ts";
import { planPrompt } from "../harness/commands/prompt.ts";
import type { ReportCommand } from "../commands/expand.ts";
import type { RunSetup } from "../harness/setup/setup.ts";
import { asksToThink } from "../harness/model/output-tokens.ts";
import { buildRequest } from "../harness/request.ts";
import { createAgentResources, knowSecrets, providerSecrets, resourceInternals, shownText, seedSpent, spentSoFar, takeHookContext, takeHookMessages, type AgentResources, type NoticeSink } from "../harness/resources.ts";
import { grantSkill, hooksFor, mainRunContext, restoreLoadedTools, subagentRunContext, toolRunFor, type RunContext } from "../harness/run-context.ts";
import { countInConversation, createRunState, emptySpend, recordBilled, recordSideCall, recordTurn, type RunSpend, type RunState } from "../harness/run-state.ts";
import { memoryAtStart, registerSessionEnd, reminderBlock, stopFailureHooks, stopHookContinues, subagentStartContext, submitPrompt } from "../harness/hooks/session-hooks.ts";
import { loadRunSetup } from "../harness/setup/setup.ts";
import { subagentSpawner } from "../harness/agents/subagents.ts";
import { reportShells } from "./shell-reports.ts";
import { awaitBackgroundAgents, startBackgroundAgents, stopBackgroundAgents, takeBackgroundNotifications } from "../harness/agents/background-agents.ts";
import { joinRunPermissions } from "../harness/permissions/run-permissions.ts";
import { preloadedSkills } from "../harness/agents/preloaded-skills.ts";
import { structuredOutputFailure } from "../harness/structured-output.ts";
import { PLAN_MODE_REMINDER } from "../plan-mode/texts.ts";
import { httpStatusOf, streamTurn } from "./stream-turn.ts";
import { toolUsesOf, withUserText } from "./transcript.ts";
import type { RunAgentOptions, RunAgentResult } from "../types.ts";
import { type TodoChanges, watchTodoChanges } from "./todo-changes.ts";

export { DEFAULT_MAX_TURNS } from "../harness/run-context.ts";

/** Runs one user prompt to completion. Never rejects: failures come back as stopReason "error" and
 * cancellation as "aborted", always with a transcript that can be sent back as the next history. */
export async function runAgent(given: RunAgentOptions): Promise<RunAgentResult> {
  const resources = given.resources ?? createAgentResources();
  knowSecrets(resources, [...secretValuesOf(given.env ?? process.env), ...providerSecrets(given.providerOptions)]);
  const options = withShownSecretsHidden(withQuietBeforeChanges(given), resources);
  const state = createRunState(options.history ?? [], options.emit);
  const notice: NoticeSink = (level, message) => options.emit({ type: "notice", level, message });
  // MCP servers report connections and failures to whichever runs are listening.
  const listeners = resourceInternals(resources).listeners;
  listeners.add(notice);
  for (const message of takeHookMessages(resources)) notice("warning", message);
  seedSpent(resources, options.spentBefore);
  const shells = reportShells(resources.toolState, options.emit, options.onKillShell);
  let result: RunAgentResult;
  try {
    result = await startRun(options, resources, state, notice);
  } catch (error) {
    result = finish(state, "error", `The agent loop failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    shells.close();
    listeners.delete(notice);
    countInConversation(resources, state);
  }
  // Its error may quote a command of the settings and its stderr (an apiKeyHelper's): shown as notices are.
  if (result.errorMessage !== undefined) result.errorMessage = shownText(resources, result.errorMessage);
  if (result.modelFailure) result.modelFailure.error = shownText(resources, result.modelFailure.error);
  result.spent = spentSoFar(resources);
  try {
    await Promise.allSettled(state.background);
  } finally {
    if (!options.resources) await resources.dispose();
  }
  return result;
}

/** The options with an `emit` whose notices (a failed MCP server's stderr, a failed hook's command)
 * hide the secrets the run knows, as its debug log does: they are stored with the conversation and
 * sent to each of the user's clients. Sub-agents inherit it with the options. */
function withShownSecretsHidden(options: RunAgentOptions, resources: AgentResources): RunAgentOptions {
  const { emit } = options;
  return { ...options, emit: (event) => emit(event.type === "notice" ? { ...event, message: shownText(resources, event.message) } : event) };
}

/** The options with a `beforeChanges` that never rejects (its failure does not stop the run), so
 * that the places that await it (tool calls, hooks, and those of sub-agents, which inherit the
 * options) need not each catch. */
function withQuietBeforeChanges(options: RunAgentOptions): RunAgentOptions {
  const { beforeChanges } = options;
  return beforeChanges ? { ...options, beforeChanges: (toolUseId) => beforeChanges(toolUseId).catch(() => {}) } : options;
}

/** Loads the configuration, reads the prompt (slash commands, prompt hooks), then runs the loop. */
async function startRun(given: RunAgentOptions, resources: AgentResources, state: RunState, notice: NoticeSink): Promise<RunAgentResult> {
  const { signal } = given;
  if (signal.aborted) return finish(withPrompt(state, given.prompt), "aborted");
  const setup = await loadRunSetup(given, resources, notice);
  if ("refused" in setup) return finish(withPrompt(state, given.prompt), "error", setup.refused);
  if (given.permissionMode === "bypassPermissions" && setup.permissions.bypassDisabled) refuseMode(state, setup.permissions.mode, "bypassPermissions");
  // A turn of the event loop between reading the configuration and building the request, and
  // before each request (below): a runner starting dozens of runs at once serves the streams of
  // those already going in between, instead of after one long stretch of set-up.
  await nextTurn();
  const main = mainAgentOf(given, setup);
  if (!main.ok) return finish(withPrompt(state, given.prompt), "error", main.error);
  if (main.agent) applyMainAgentMode(setup.permissions, main.agent, given.permissionMode, (message) => notice("warning", message));
  // The settings' env counts for the harness too (which model, where): see RunSetup.harnessEnv.
  const withEnv = setup.harnessEnv ? { ...given, env: setup.harnessEnv } : given;
  // A network variable (a proxy, the CA file, the client certificate) the settings' env set wrong
  // would fail every request: said once, here. Those a project's settings set are not the run's
  // requests' (RunSetup.harnessEnv), only its commands'.
  const proxy = networkProblem(withEnv.env ?? process.env);
  if (proxy) return finish(withPrompt(state, given.prompt), "error", proxy);
  const configured = main.agent ? asMainAgent(withEnv, main.agent, chooseModel(withEnv, setup.settings)) : withEnv;
  const plan = planPrompt(given.prompt, setup);
  const picked = pickModel(configured, setup.settings, setup.availableModels, plan.kind === "send" ? plan.model : undefined);
  if (!picked.ok) return finish(withPrompt(state, given.prompt), "error", picked.error);
  state.model = picked.model;
  if (plan.kind === "help") return reply(state, plan.text);
  // Every report but /context answers before the model's credentials are needed.
  if (plan.kind === "report" && plan.name !== "context") return reply(state, shownText(resources, await reportText(plan.name, plan.args, { resources, setup, model: state.model, history: state.messages, env: withEnv.env ?? process.env })));
  // A run that fails before its command's `!` commands run keeps its text with the arguments released.
  const failed = plan.kind === "send" ? () => withPrompt(state, releaseArguments(plan.text)) : plan.kind === "mcp-prompt" ? () => withPrompt(state, given.prompt) : () => state;
  if (signal.aborted) return finish(failed(), "aborted");
  const keyed = await withHelperKey(configured, setup.apiKeyHelper, state.model, setup.cwd);
  if (!keyed.ok) return finish(failed(), "error", keyed.error);
  const options = withAwsCommands(keyed.options, setup.awsCommands);
  const routed = providerFor(options, state.model);
  if (!routed.ok) return finish(failed(), "error", routed.error);
  state.model = routed.model;

  const ctx = mainRunContext(
    {
      options,
      resources,
      setup,
      model: routed.model,
      provider: routed.provider,
      notice,
      conversation: () => state.messages,
      record: (model, usage) => recordSideCall(state, model, usage),
      hookAgent: runHookAgent,
      ...(plan.kind === "send" && plan.allowedTools && { allowedTools: plan.allowedTools }),
      ...(main.agent && { agent: main.agent }),
    },
    (parent) => subagentSpawner(parent, (child) => runSubagent(parent, child, state.spend)),
  );
  // Claude Code's --permission-prompt-tool: calls that need approval are asked of an MCP tool.
  if (options.permissionPromptTool !== undefined) {
    const { promptToolApprover } = await import("../harness/permissions/prompt-tool.ts");
    const approve = promptToolApprover(options.permissionPromptTool, [...ctx.tools, ...ctx.withheld], setup.cwd, signal);
    if (typeof approve === "string") return finish(failed(), "error", approve);
    ctx.options = { ...ctx.options, approve };
  }
  options.onReady?.(readyInfo(ctx));
  if (plan.kind === "send" && plan.hooks) ctx.hooks.add(plan.hooks);
  // SessionEnd hooks get the conversation's transcript too (archiving it is what they are for).
  if (setup.loaded) registerSessionEnd(resources, hooksFor(resources, setup, options, () => ctx.permissions.mode, () => {}, { conversation: () => state.messages }));
  if (plan.kind === "compact") return (await builtinCommands()).compactCommand(ctx, state, plan.instructions);
  if (plan.kind === "clear") return (await builtinCommands()).clearCommand(ctx, state);
  if (plan.kind === "report") return reply(state, (await usageReports()).contextReport(ctx, state.messages));
  if (plan.kind === "bash") return (await builtinCommands()).bashCommand(ctx, state, plan.command);

  // A forked skill's allowed-tools hold for its `!` commands and its sub-agent, not after them.
  const fork = plan.kind === "send" ? plan.fork : undefined;
  const release = fork ? grantSkill(ctx.permissions, fork.skill, setup.projectRoot, notice) : undefined;
  let expanded: ExpandedText;
  if (plan.kind === "mcp-prompt") {
    try {
      expanded = { text: await plan.command.get(plan.args, signal), images: [] };
    } catch (error) {
      return finish(failed(), signal.aborted ? "aborted" : "error", error instanceof Error ? error.message : String(error));
    }
  } else {
    expanded = await expandCommandText(ctx, state, plan.text, plan.shellCommands === true);
  }
  // "ultrathink" typed, or in a command's or skill's text as if the user had typed it (a forked
  // skill's text is its sub-agent's task, not this run's prompt).
  ctx.asksToThink = asksToThink(given.prompt) || (plan.kind === "send" && !fork && asksToThink(expanded.text));
  // A forked skill's text is its sub-agent's task: the model gets the typed prompt and the answer.
  const resourced = await attachMentionedResources(ctx, state, fork ? given.prompt.trim() : expanded.text);
  const { text } = resourced;
  if (signal.aborted) return finish(withPrompt(state, text), "aborted");
  const submitted = await submitPrompt(ctx.hooks, resources, options.prompt, state.base.length > 0, signal, memoryAtStart(setup.memory, state));
  if (!submitted.ok) return finish(state, signal.aborted ? "aborted" : "error", submitted.reason);
  const sent = given.images ?? [];
  const attached = fork ? [...sent, await forkedSkillAnswer(ctx, state, fork, expanded), ...resourced.images] : [...sent, ...expanded.images, ...resourced.images];
  release?.();
  if (signal.aborted) return finish(withPrompt(state, text), "aborted");
  // A run in plan mode is told so with its prompt: otherwise the model learns it only from refusals.
  const context = ctx.permissions.mode === "plan" ? [...submitted.context, { type: "text" as const, text: PLAN_MODE_REMINDER }] : submitted.context;
  const before = state.messages.length;
  state.messages = withUserText(state.messages, text, [...attached, ...context]);
  if (state.messages.length > before) state.promptAt = before;
  restoreLoadedTools(ctx.registry, state.messages);
  return runLoop(ctx, state);
}

/** The text of a report that needs no model context (every one but /context). */
async function reportText(
  name: Exclude<ReportCommand, "context">,
  args: string,
  run: { resources: AgentResources; setup: RunSetup; model: string; history: readonly ModelMessage[]; env: NonNullable<RunAgentOptions["env"]> },
): Promise<string> {
  switch (name) {
    case "cost":
      return (await usageReports()).costReport(resourceInternals(run.resources).spent, Date.now(), run.model);
    case "export": {
      const { conversationText, exportConversation } = await import("../harness/reports/conversation-export.ts");
      return args ? exportConversation(run.history, args, run.setup.cwd, run.setup.permissions.additionalDirectories) : conversationText(run.history) || "Nothing to export: the conversation is empty.";
    }
    case "todos":
    case "model":
    case "permissions":
    case "add-dir": {
      const reports = await import("../harness/reports/session.ts");
      if (name === "todos") return reports.todosReport(run.resources.toolState.todos, run.history);
      if (name === "model") return reports.modelReport(run.model, run.setup.availableModels, run.env);
      return name === "permissions" ? reports.permissionsReport(run.setup.permissions) : reports.addDirReport(run.setup.permissions, args);
    }
    case "tasks":
    case "bashes":
      return (await import("../harness/reports/shells.ts")).shellsReport(run.resources.toolState, args, name);
    default:
      return (await inspectReports()).inspectReport(name, run.setup, run.model);
  }
}

// Imported when a run needs them (/compact, /clear, bash mode, the reports, --permission-prompt-tool): a
// run that sends its prompt to the model starts sooner without them.
const builtinCommands = () => import("../harness/commands/builtin.ts");
const usageReports = () => import("../harness/reports/usage.ts");
const inspectReports = () => import("../harness/reports/inspect.ts");

/** A Task call's sub-agent: the same loop with a fresh conversation on its parent's configuration.
 * Its calls count in `spend`, the main run's, as they are made: each agent of the run holds the
 * run's budget to what all of them have spent. */
async function runSubagent(parent: RunContext, options: RunAgentOptions, spend: RunSpend): Promise<RunAgentResult> {
  const result = await runSubagentLoop(parent, options, spend);
  // Its error becomes its Task call's result, which is shown (and stored) as the run's own error is.
  if (result.errorMessage !== undefined) result.errorMessage = shownText(parent.resources, result.errorMessage);
  return result;
}

async function runSubagentLoop(parent: RunContext, options: RunAgentOptions, spend: RunSpend): Promise<RunAgentResult> {
  const state = createRunState([], options.emit, spend);
  const ctx = subagentRunContext(parent, options, (level, message) => options.emit({ type: "notice", level, message }), (model, usage) => recordSideCall(state, model, usage));
  state.model = ctx.model;
  // While it runs, an update approved in it or in another agent of the run holds for all of them.
  const leave = joinRunPermissions(ctx.runPermissions, ctx.permissions);
  try {
    if (options.signal.aborted) return finish(withPrompt(state, options.prompt), "aborted");
    // The skills its definition names come first, then its task.
    const skills = await preloadedSkills(ctx, state);
    if (skills.length > 0) state.messages = withUserText(state.messages, "", skills);
    state.messages = withUserText(state.messages, options.prompt, [...(options.forkedSkill?.images ?? []), ...(await subagentStartContext(ctx))]);
    return options.signal.aborted ? finish(state, "aborted") : await runLoop(ctx, state);
  } catch (error) {
    return finish(state, "error", `The agent loop failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    leave();
    await Promise.allSettled(state.background);
  }
}

/** A sub-agent started by a direct Task call (invoke-tool.ts), with no run around it: its calls
 * count in a spend of its own. */
export function runDirectSubagent(parent: RunContext, options: RunAgentOptions): Promise<RunAgentResult> {
  return runSubagent(parent, options, emptySpend());
}

/** The tools an agent hook's sub-agent may use: it looks, it changes nothing. */
const HOOK_AGENT_TOOLS: ReadonlySet<string> = new Set(["Read", "Grep", "Glob"]);
/** Claude Code gives an agent hook up to 50 turns. */
const HOOK_AGENT_MAX_TURNS = 50;

/** An agent hook's sub-agent: the hook's question, Read, Grep and Glob, and the parent's
 * permission rules, with no hooks of its own (its calls would fire the hooks that started it), no
 * one to ask (a call that would need approval is refused) and no events (the user sees the hook's
 * verdict, not its search). */
async function runHookAgent(parent: RunContext, request: HookAgentRequest): Promise<RunAgentResult> {
  // Its cost joins the run's when it returns: the hook's verdict is not cut short by the budget.
  const { approve: _asking, maxBudgetUsd: _budget, onModelEvent: _observed, ...inherited } = parent.options;
  const options: RunAgentOptions = {
    ...inherited,
    prompt: request.prompt,
    history: [],
    model: request.model,
    provider: request.provider,
    systemPrompt: `${AGENT_HOOK_SYSTEM_PROMPT}\n\n${environmentBlock({ cwd: parent.setup.cwd, model: request.model })}`,
    tools: parent.tools.filter((tool) => HOOK_AGENT_TOOLS.has(tool.name)),
    maxTurns: HOOK_AGENT_MAX_TURNS,
    signal: request.signal,
    emit: () => {},
  };
  const state = createRunState([], options.emit);
  const ctx: RunContext = { ...subagentRunContext(parent, options, () => {}, (model, usage) => recordSideCall(state, model, usage)), hooks: NO_HOOK_HOST };
  state.model = ctx.model;
  try {
    state.messages = withUserText(state.messages, options.prompt, []);
    return await runLoop(ctx, state);
  } catch (error) {
    return finish(state, "error", `The hook's agent failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function runLoop(ctx: RunContext, state: RunState): Promise<RunAgentResult> {
  const configure = watchConfigure(ctx.subagent ? undefined : ctx.options.onConfigure);
  const todoChanges = watchTodoChanges(ctx.subagent ? undefined : ctx.options.onTodosSet, ctx.resources.toolState);
  startBackgroundAgents(ctx, state);
  try {
    return await turns(ctx, state, () => configure.apply(ctx, state), todoChanges);
  } finally {
    configure.close();
    todoChanges.close();
    await stopBackgroundAgents(state);
  }
}

async function turns(ctx: RunContext, state: RunState, applyConfigure: () => void, todoChanges: TodoChanges): Promise<RunAgentResult> {
  const { signal } = ctx.options;
  const toolRun = toolRunFor(ctx, state);
  for (let turn = 0; ; turn++) {
    if (signal.aborted) return finish(state, "aborted");
    // Applied before the limit is checked: a maxTurns lowered during this turn holds at once.
    applyConfigure();
    const overBudget = budgetReached(ctx, state);
    if (overBudget !== undefined) return finish(state, "max_budget", overBudget);
    if (turn >= ctx.maxTurns) break;
    await takeSteering(ctx, state);
    // A cancel while a steer's files were read (an approval asked) ends the run before the request.
    if (signal.aborted) return finish(state, "aborted");
    takeAsyncHookContext(ctx, state);
    const todos = todoChanges.take();
    if (todos) state.messages = withUserText(state.messages, "", [todos]);
    takeBackgroundNotifications(state);
    const request = await nextRequest(ctx, state);
    if (typeof request === "string") return finish(state, "error", request);
    await nextTurn();
    const sent = state.messages.length;
    const started = Date.now();
    const outcome = await streamTurn(ctx.provider, request, state.emit, state.started, ctx.options.onModelEvent);
    state.spend.apiMs += Date.now() - started;
    const usage = recordTurn(state, ctx.model, outcome.usage);
    // A call whose server reported no usage measures nothing: the next request is estimated whole.
    state.lastRequestTokens = usage.unreportedCalls ? undefined : contextTokensOf(usage);
    state.lastRequestMessages = sent;
    // Billed, and so counted in the run's usage and cost, but no measure of the context.
    if (outcome.abandonedUsage) recordBilled(state, ctx.model, outcome.abandonedUsage);
    if (outcome.message) {
      state.messages.push(outcome.message);
      state.lastReply = outcome.message;
    }
    if (outcome.stopReason === "aborted" || signal.aborted) return finish(state, "aborted");
    if (outcome.stopReason === "error") {
      // The call sent again to the fallback model is not a turn of its own.
      if (fellBack(ctx, state, outcome)) {
        turn--;
        continue;
      }
      const message = outcome.errorMessage ?? `The ${ctx.provider.name} model request failed.`;
      await stopFailureHooks(ctx, state, message, outcome.error);
      const status = httpStatusOf(outcome.error?.code);
      return { ...finish(state, "error", withKeyHint(message, outcome.error)), modelFailure: { ...(status !== undefined && { status }), error: message } };
    }
    if (outcome.stopReason === "refusal") return refused(ctx, state, turn, outcome.message, outcome.refusal);

    const calls = outcome.message ? toolUsesOf(outcome.message) : [];
    if (calls.length === 0) {
      // The server paused a long turn: sending the conversation back lets the model go on.
      if (outcome.stopReason === "pause_turn") continue;
      if (outcome.stopReason === "max_tokens") {
        ctx.notice("warning", "The reply was cut off at the model's output token limit (max_tokens); it is incomplete.");
      }
      // Background agents still at work: their results are the model's to report before the run ends.
      const goesOn = (await takeSteering(ctx, state)) || (await awaitBackgroundAgents(ctx, state)) || (await stopHookContinues(ctx, state));
      // A cancel while the Stop hooks ran (they are killed) ends the run as cancelled, not done.
      if (signal.aborted) return finish(state, "aborted");
      if (goesOn) continue;
      const { structured } = ctx;
      if (structured && !structured.answer) {
        const reminder = structured.remind();
        if (reminder === undefined) return { ...finish(state, "error", structuredOutputFailure()), structuredOutputMissed: true };
        state.messages = withUserText(state.messages, reminder);
        continue;
      }
      const done = finish(state, "end_turn");
      return structured?.answer ? { ...done, structuredOutput: structured.answer.value } : done;
    }
    for (const call of calls) {
      if (state.started.has(call.id)) continue;
      state.started.add(call.id);
      state.emit({ type: "tool.started", toolName: call.name, toolUseId: call.id, input: call.input });
    }
    const results = await executeToolCalls(calls, outcome.inputErrors ? { ...toolRun, inputErrors: outcome.inputErrors } : toolRun);
    state.messages.push({ role: "user", content: results });
    if (signal.aborted) return finish(state, "aborted");
    if (state.stopRequest !== undefined) return finish(state, "error", state.stopRequest);
    if (ctx.structured?.exhausted()) return { ...finish(state, "error", structuredOutputFailure()), structuredOutputMissed: true };
  }
  return finish(
    state,
    "max_turns",
    `Reached the maximum of ${ctx.maxTurns} model turn${ctx.maxTurns === 1 ? "" : "s"} for this run before the task was finished. Send another message to continue.`,
  );
}

/** A refused reply is not carried out: its tool calls do not run. Neither it nor, when the model
 * refused at once, the prompt that drew it stays in the conversation: kept, they draw refusal after
 * refusal (the API asks that the turn be reset). */
function refused(ctx: RunContext, state: RunState, turn: number, reply: ModelMessage | undefined, why: string | undefined): RunAgentResult {
  if (reply && state.messages.at(-1) === reply) state.messages.pop();
  for (const call of reply ? toolUsesOf(reply) : []) {
    if (state.started.has(call.id)) state.emit({ type: "tool.completed", toolUseId: call.id, output: REFUSED_CALL, isError: true });
  }
  if (turn === 0 && state.promptAt !== undefined && state.promptAt === state.messages.length - 1) {
    state.messages.pop();
    ctx.notice("warning", "The prompt the model declined is left out of the conversation, so that it does not draw further refusals.");
  }
  return finish(state, "error", `The model declined to answer${why ? `: ${why}` : ""} (stop reason: refusal).`);
}

const REFUSED_CALL = "Not run: the model's reply was a refusal.";

/** Adds the steer messages waiting now to the conversation; whether there were any. A sub-agent
 * takes none: they are for the main agent. What a steer names is attached as a prompt's mentions
 * are; the user sees the steer as typed, then the calls that read them. */
async function takeSteering(ctx: RunContext, state: RunState): Promise<boolean> {
  const texts = ctx.subagent ? [] : (ctx.options.steering?.take() ?? []);
  for (const text of texts) {
    state.emit({ type: "user.message", text, steer: true });
    const expanded = await attachMentions(ctx, state, text);
    state.messages = withUserText(state.messages, expanded.text, expanded.images);
  }
  return texts.length > 0;
}

/** What async hooks have said since the last request joins the conversation, as Claude Code
 * gives it with the next turn. A sub-agent takes none: they are the main conversation's. */
function takeAsyncHookContext(ctx: RunContext, state: RunState): void {
  if (ctx.subagent) return;
  const context = takeHookContext(ctx.resources);
  if (context.length > 0) state.messages = withUserText(state.messages, "", context.map(({ event, text }) => reminderBlock(event, text)));
}

/** The next request; first the conversation is compacted when it has grown too large for the
 * model's window (tried once per run: a failure is not retried every turn). With automatic
 * compaction off, why the run stops instead, when the request would fill the window. */
async function nextRequest(ctx: RunContext, state: RunState): Promise<ModelRequest | string> {
  const built = buildRequest(ctx, state.messages);
  const full = contextLimitReached(ctx, state, built.prefixTokens);
  if (full !== undefined) return full;
  if (state.autoCompactFailed || !needsCompaction(ctx, state, built.prefixTokens)) return built.request;
  const compacted = await compactConversation(ctx, state, "auto", "");
  if (!compacted.ok) {
    state.autoCompactFailed = true;
    ctx.notice("warning", `The conversation is close to the model's context limit and could not be compacted: ${compacted.error}`);
    return built.request;
  }
  ctx.notice("info", `The conversation was compacted: ${compacted.dropped} earlier messages were replaced by a summary.`);
  return buildRequest(ctx, state.messages).request;
}
