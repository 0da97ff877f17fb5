// One model request from the run's fixed parts and the conversation so far (see
// context/assemble.ts for the order and the cache breakpoints).
import type { ModelMessage, ModelRequest, ToolSchema } from "@harness/llm";
import { assembleRequestContext } from "../context/assemble.ts";
import { promptCachingOn } from "../context/prompt-caching.ts";
import { wholeToolDenial } from "../permissions/match-rule.ts";
import type { Tool } from "../types.ts";
import { withOutputLimits } from "./model/output-tokens.ts";
import type { RunContext } from "./run-context.ts";

/** Tools are long-lived objects; their schemas are built once. */
const schemas = new WeakMap<Tool, ToolSchema>();

export function schemaOf(tool: Tool): ToolSchema {
  let schema = schemas.get(tool);
  if (!schema) {
    schema = { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
    schemas.set(tool, schema);
  }
  return schema;
}

/** The tools the next request offers: the registry's, but for those a tool-wide deny rule now names
 * (one an approval added mid-run, in this agent or another of the run), as the run's start leaves
 * out those its rules name: the model is not offered a tool it may not use at all. */
export function offeredTools(ctx: RunContext): Tool[] {
  return ctx.registry.visibleTools().filter((tool) => !wholeToolDenial(ctx.permissions, tool.name));
}

/** The request, and the estimated tokens of everything before the conversation. */
export function buildRequest(ctx: RunContext, messages: readonly ModelMessage[]): { request: ModelRequest; prefixTokens: number } {
  const { options } = ctx;
  const assembled = assembleRequestContext({
    systemPrompt: ctx.systemPrompt,
    ...(options.appendSystemPrompt !== undefined && { appendSystemPrompt: options.appendSystemPrompt }),
    environment: ctx.environment,
    memory: ctx.setup.memory,
    tools: offeredTools(ctx).map(schemaOf),
    deferredIndex: ctx.registry.deferredIndex(),
    skills: ctx.skills,
    history: messages,
    caching: promptCachingOn(ctx.setup.harnessEnv ?? options.env ?? process.env, ctx.model),
  });
  const request: ModelRequest = { model: ctx.model, system: assembled.system, messages: assembled.messages, signal: options.signal };
  if (assembled.tools.length > 0) request.tools = assembled.tools;
  // Thinking turned on by the settings, or by what the run was asked (RunContext.asksToThink).
  const thinkingOn = ctx.setup.settings.alwaysThinkingEnabled === true || ctx.asksToThink === true;
  return { request: withOutputLimits(request, options, thinkingOn), prefixTokens: assembled.prefixTokens };
}
