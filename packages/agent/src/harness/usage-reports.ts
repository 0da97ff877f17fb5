// The reports /context and /cost answer with, without a model call: how the next request would fill
// the model's context window, and what the conversation has spent so far.
import type { ModelMessage } from "@harness/llm";
import { autoCompactEnabled, contextLimit } from "../compaction/auto-compact.ts";
import { compactThreshold, contextWindowFor } from "../compaction/context-window.ts";
import { estimateTokens as messageTokens } from "../compaction/split-point.ts";
import { deferredSection, toolTokens } from "../context/assemble.ts";
import { memoryReminder } from "../context/format-memory.ts";
import { estimateTokens } from "../context/tokens.ts";
import { isMcpToolName, MCP_TOOL_PREFIX } from "../mcp/names.ts";
import { offeredTools, schemaOf } from "./request.ts";
import type { ConversationSpend } from "./resources.ts";
import type { RunContext } from "./run-context.ts";

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

/** The conversation's usage and cost so far, its model calls (its sub-agents' and hooks' included)
 * and how long they and the conversation took. */
export function costReport(spent: ConversationSpend, now = Date.now()): string {
  const { usage } = spent;
  const cost = usage.costUsd === undefined && spent.calls > 0 ? "not known (the price of the model is not known)" : `$${(usage.costUsd ?? 0).toFixed(4)}`;
  const searches = usage.webSearchRequests ? `, ${usage.webSearchRequests} web search${usage.webSearchRequests === 1 ? "" : "es"}` : "";
  const rows: [string, string][] = [
    ["Total cost:", cost],
    ["Total duration (API):", duration(spent.apiMs)],
    ["Total duration (wall):", duration(now - spent.startedAt)],
    ["Model calls:", String(spent.calls)],
    [
      "Usage:",
      `${tokenCount(usage.inputTokens)} input, ${tokenCount(usage.outputTokens)} output, ${tokenCount(usage.cacheReadTokens ?? 0)} cache read, ${tokenCount(usage.cacheWriteTokens ?? 0)} cache write${searches}`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)} ${value}`).join("\n");
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

/** 743, 3.2k, 200k. */
function tokenCount(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  const thousands = tokens / 1000;
  return Number.isInteger(thousands) && thousands >= 100 ? `${thousands}k` : `${thousands.toFixed(1)}k`;
}

/** 0.8s, 12.3s, 4m 5.0s, 1h 2m 3.0s. */
function duration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = `${(seconds % 60).toFixed(1)}s`;
  if (hours > 0) return `${hours}h ${minutes}m ${rest}`;
  return minutes > 0 ? `${minutes}m ${rest}` : rest;
}
