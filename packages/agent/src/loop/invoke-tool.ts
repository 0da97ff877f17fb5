// One tool call made directly (not by the model), with a run's machinery: the configuration a run
// in the same place loads (settings, permission rules and mode, hooks, sandbox, env), the tool's own
// input validation, the tool gate (PreToolUse hooks → permission check → PostToolUse hooks), and the
// tool's output bounded as it is for the model. Nobody is asked to approve: a call that would ask is
// refused, as in a headless run, and said to need approval.
import type { ModelEvent, Provider, ToolUseBlock } from "@harness/llm";
import { secretValuesOf } from "@harness/llm/hidden-secrets";
import type { AgentEvent } from "@harness/protocol";
import { applyMainAgentMode, mainAgentOf } from "../harness/agents/main-agent.ts";
import { subagentSpawner } from "../harness/agents/subagents.ts";
import { pickModel, providerFor } from "../harness/model/model.ts";
import { createAgentResources, knowSecrets, providerSecrets, shownText } from "../harness/resources.ts";
import { mainRunContext, toolRunFor, type RunContext } from "../harness/run-context.ts";
import { createRunState } from "../harness/run-state.ts";
import { loadRunSetup, type RunSetup } from "../harness/setup/setup.ts";
import { executeToolCalls, type ToolGate } from "./execute-tool-calls.ts";
import { validateToolInput } from "./tool-input.ts";
import { permissionDecision } from "../harness/tool-gate.ts";
import type { RunAgentOptions, Tool } from "../types.ts";

/** The run options an invocation reads its configuration from (no prompt, no history: there is no
 * model turn). `emit` gets tool.started once the gate lets the call run, its tool.output, and its
 * tool.completed; notices too. */
export type ToolInvocationOptions = Omit<RunAgentOptions, "prompt" | "history" | "approve" | "steering" | "onConfigure" | "maxTurns">;

/** How an invocation ended: `output`, the tool's result text as the model would get it (bounded as
 * the tool bounds it); `denied`, the gate refused it (a deny rule, a hook, the mode); with it,
 * `needsApproval` when the permission check would have asked someone. */
export type ToolInvocationOutcome = { output: string; isError: boolean; denied?: true; needsApproval?: true };

export type PreparedInvocation =
  | { ok: true; run(): Promise<ToolInvocationOutcome> }
  | { ok: false; problem: "unknown_tool" | "invalid_input" | "refused"; message: string };

/** Loads the configuration and checks the call (its tool known to the run, its input valid for the
 * tool's schema) before anything runs. `run` then makes the call; it never rejects, and releases
 * what it made (the resources, unless given). */
export async function prepareToolInvocation(given: ToolInvocationOptions, call: { id: string; name: string; input: unknown }): Promise<PreparedInvocation> {
  const owned = given.resources === undefined;
  const resources = given.resources ?? createAgentResources();
  const release = async () => {
    if (owned) await resources.dispose();
  };
  knowSecrets(resources, [...secretValuesOf(given.env ?? process.env), ...providerSecrets(given.providerOptions)]);
  const emit = (event: AgentEvent) => given.emit(event.type === "notice" ? { ...event, message: shownText(resources, event.message) } : event);
  const options: RunAgentOptions = { ...given, prompt: "", emit };
  const notice = (level: "info" | "warning" | "error", message: string) => emit({ type: "notice", level, message });
  let ctx: RunContext;
  try {
    const setup = await loadRunSetup(options, resources, notice);
    if ("refused" in setup) {
      await release();
      return { ok: false, problem: "refused", message: setup.refused };
    }
    const main = mainAgentOf(options, setup);
    if (main.ok && main.agent) applyMainAgentMode(setup.permissions, main.agent, options.permissionMode, (message) => notice("warning", message));
    const withEnv = setup.harnessEnv ? { ...options, env: setup.harnessEnv } : options;
    const { model, provider } = modelOf(withEnv, setup);
    ctx = mainRunContext(
      { options: withEnv, resources, setup, model, provider, notice, record: () => {}, ...(main.ok && main.agent && { agent: main.agent }) },
      // A direct Task call runs its sub-agent as a run's would (the loop imported for it only).
      (parent) => subagentSpawner(parent, async (child) => (await import("./run-agent.ts")).runDirectSubagent(parent, child)),
    );
  } catch (error) {
    await release();
    throw error;
  }
  // A tool a deny rule keeps from the model is still found, so that the gate refuses it by that rule.
  const tool = ctx.registry.get(call.name) ?? ctx.withheld.find((t) => t.name === call.name);
  if (!tool) {
    await release();
    return { ok: false, problem: "unknown_tool", message: `no tool "${call.name}" in this session's runs` };
  }
  const checked = validateToolInput(tool, call.input);
  if (!checked.ok) {
    await release();
    return { ok: false, problem: "invalid_input", message: checked.error };
  }
  return { ok: true, run: () => invoke(ctx, tool, { type: "tool_use", id: call.id, name: call.name, input: checked.args as Record<string, unknown> }).finally(release) };
}

async function invoke(ctx: RunContext, tool: Tool, call: ToolUseBlock): Promise<ToolInvocationOutcome> {
  let completed: Extract<AgentEvent, { type: "tool.completed" }> | undefined;
  const emit = ctx.options.emit;
  // The call's tool.completed is held back until it is known whether a refusal needs approval.
  const state = createRunState([], (event) => {
    if (event.type === "tool.completed" && event.toolUseId === call.id) completed = event;
    else emit(event);
  });
  const toolRun = toolRunFor(ctx, state);
  const gate = toolRun.gate!;
  // tool.started once the call may run: a refused call never started.
  const announced: ToolGate = {
    ...gate,
    async before(...args) {
      const verdict = await gate.before(...args);
      if (verdict.run) emit({ type: "tool.started", toolName: call.name, toolUseId: call.id, input: verdict.args as Record<string, unknown> });
      return verdict;
    },
  };
  await executeToolCalls([call], { ...toolRun, tools: { get: (name) => (name === tool.name ? tool : undefined), keys: () => [tool.name] }, gate: announced });
  await Promise.allSettled(state.background);
  if (!completed) return { output: "the call ended without a result", isError: true };
  const asks = completed.denied === true && permissionDecision(call.name, call.input, ctx.permissions).behavior === "ask";
  emit(asks ? { ...completed, needsApproval: true } : completed);
  const { output, isError, denied } = completed;
  return { output, isError, ...(denied && { denied: true as const }), ...(asks && { needsApproval: true as const }) };
}

/** The run's model and provider, for what a tool call may ask of a model (a prompt hook, WebFetch);
 * without credentials, a provider that says so when asked: the call itself needs none. */
function modelOf(options: RunAgentOptions, setup: RunSetup): { model: string; provider: Provider } {
  const picked = pickModel(options, setup.settings, setup.availableModels);
  const model = picked.ok ? picked.model : (options.model ?? "");
  const routed = picked.ok ? providerFor(options, model) : undefined;
  if (routed?.ok) return { model: routed.model, provider: routed.provider };
  const error = routed && !routed.ok ? routed.error : picked.ok ? "no model" : picked.error;
  return { model, provider: unavailable(error) };
}

function unavailable(error: string): Provider {
  return {
    name: "unavailable",
    async *stream(): AsyncIterable<ModelEvent> {
      yield { type: "done", stopReason: "error", message: { role: "assistant", content: [] }, usage: { inputTokens: 0, outputTokens: 0 }, errorMessage: error };
    },
  };
}
