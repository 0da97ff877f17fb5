// The reports /context and /cost answer with, without a model call: how the next request would fill
// the model's context window, and what the conversation has spent so far (cost.ts).
import type { ModelMessage } from "@harness/llm";
import { autoCompactEnabled, contextLimit } from "../../compaction/auto-compact.ts";
import { compactThreshold, contextWindowFor } from "../../compaction/context-window.ts";
import { estimateTokens as messageTokens } from "../../compaction/split-point.ts";
import { deferredSection, toolTokens } from "../../context/assemble.ts";
import { memoryReminder } from "../../context/format-memory.ts";
import { estimateTokens } from "../../context/tokens.ts";
import { isMcpToolName, MCP_TOOL_PREFIX } from "../../mcp/names.ts";
import { tokenCount } from "./cost.ts";
import { offeredTools, schemaOf } from "../request.ts";
import type { RunContext } from "../run-context.ts";

export { costReport } from "./cost.ts";

/** The parts of the next request as the run estimates them for compaction (see
 * assembleRequestContext's prefixTokens), with the messages estimated as compaction does. */
export function contextReport(ctx: RunContext, messages: readonly ModelMessage[]): string {
  const env = ctx.options.env ?? process.env;
  const window = contextWindowFor(ctx.model, env);
  const append = ctx.options.appendSystemPrompt?.trim() ? `\n\n${ctx.options.appendSystemPrompt}` : "";
  const visible = offeredTools(ctx).map(schemaOf);
  const mcp = visible.filter((tool) => isMcpToolName(tool.name));
  const memory = ctx.setup.memory;
  const parts: [string, number][] = [
    ["System prompt", estimateTokens(`${ctx.systemPrompt}${append}`) + estimateTokens(ctx.environment)],
    ["Built-in tools", toolTokens(visible.filter((tool) => !isMcpToolName(tool.name)))],
    // Deferred MCP tools cost only their line in the system prompt until they are loaded.
    ["MCP tools", (mcp.length > 0 ? toolTokens(mcp) : 0) + estimateTokens(deferredSection(ctx.registry.deferredIndex()))],
    ["Memory files", estimateTokens(memoryReminder(memory))],
    ["Skills", estimateTokens(ctx.skills)],
    ["Messages", messages.reduce((sum, message) => sum + messageTokens(message), 0)],
  ];
  const used = parts.reduce((sum, [, tokens]) => sum + tokens, 0);
  const share = (tokens: number) => `${((tokens / window) * 100).toFixed(1)}%`;
  const table: [string, number][] = [...parts, ["Free space", Math.max(0, window - used)]];
  const width = Math.max(...table.map(([name]) => name.length));
  const figures = table.map(([, tokens]) => tokenCount(tokens));
  const figureWidth = Math.max(...figures.map((figure) => figure.length));
  const threshold = compactThreshold(env);
  const lines = [
    `Context usage: ${ctx.model} · ${tokenCount(used)} of ${tokenCount(window)} tokens (${share(used)})`,
    "",
    ...table.map(([name, tokens], i) => `  ${name.padEnd(width)}  ${(figures[i] as string).padStart(figureWidth)} tokens (${share(tokens)})`),
    "",
    autoCompactEnabled(ctx.setup.settings.autoCompactEnabled, env)
      ? `The conversation is compacted automatically at ${Math.round(threshold * 100)}% of the window (${tokenCount(Math.floor(window * threshold))} tokens).`
      : `Automatic compaction is off: the run stops at ${tokenCount(contextLimit(window))} tokens; /compact summarizes the conversation.`,
  ];
  const servers = mcpByServer(mcp);
  if (servers.length > 0) lines.push("", "MCP tools by server:", ...servers.map(([server, count, tokens]) => `  ${server}: ${count} tool${count === 1 ? "" : "s"}, ${tokenCount(tokens)} tokens`));
  if (memory.length > 0) lines.push("", "Memory files:", ...memory.map((file) => `  ${file.path} (${file.scope}): ${tokenCount(estimateTokens(file.content))} tokens`));
  lines.push("", "Counts are estimates at about four characters a token; the model's own count differs somewhat.");
  return lines.join("\n");
}

/** Visible MCP tools by server: `[server, tools, tokens]`, in the order the servers come. */
function mcpByServer(tools: ReturnType<typeof schemaOf>[]): [string, number, number][] {
  const byServer = new Map<string, ReturnType<typeof schemaOf>[]>();
  for (const tool of tools) {
    const server = tool.name.slice(MCP_TOOL_PREFIX.length).split("__")[0] ?? "";
    byServer.set(server, [...(byServer.get(server) ?? []), tool]);
  }
  return [...byServer].map(([server, own]) => [server, own.length, toolTokens(own)]);
}
