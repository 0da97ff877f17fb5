// MCP prompts (templates a server offers) as slash commands, as Claude Code has them:
// `/mcp__<server>__<prompt> arg1 arg2` asks the server for the prompt with those arguments, in the
// order the server lists them, and what it answers is sent as the user's prompt.
import { z } from "zod";
import type { McpConnection } from "./connection.ts";
import { notConnectedMessage } from "./mcp-tool.ts";
import { listPages } from "./list-pages.ts";
import { mcpToolName } from "./names.ts";
import { withRequestSignal } from "./request-signal.ts";
import { truncateOutput } from "../truncate.ts";
import { convertToolResult } from "./tool-result.ts";

export type McpPromptArgument = { name: string; description?: string; required: boolean };
/** A prompt as the server lists it. */
export type McpPromptInfo = { name: string; description?: string; arguments: McpPromptArgument[] };

export type McpPromptCommand = {
  /** `mcp__<server>__<prompt>`, both parts sanitised as tool names are. */
  name: string;
  server: string;
  description?: string;
  arguments: readonly McpPromptArgument[];
  /** The prompt's text with these arguments; rejects with a message fit for the user. */
  get(args: Record<string, string>, signal: AbortSignal): Promise<string>;
};

const MAX_PROMPT_PAGES = 20;
const GetPromptResult = z.object({ messages: z.unknown() });

/** Every page of the server's prompts (list-pages.ts), each checked on its own: a malformed one is left out and
 * named in `skipped`. A server without prompts has none. */
export async function listAllPrompts(connection: McpConnection, options: { signal: AbortSignal; timeout: number }): Promise<{ prompts: McpPromptInfo[]; skipped: string[] }> {
  const prompts: McpPromptInfo[] = [];
  const skipped: string[] = [];
  if (!connection.client.getServerCapabilities()?.prompts) return { prompts, skipped };
  for await (const page of listPages(connection.client, "prompts/list", MAX_PROMPT_PAGES, options)) {
    for (const raw of page) {
      const checked = checkPrompt(raw);
      if (typeof checked === "string") skipped.push(checked);
      else prompts.push(checked);
    }
  }
  return { prompts, skipped };
}

function checkPrompt(raw: unknown): McpPromptInfo | string {
  const entry = raw as Record<string, unknown> | null;
  if (typeof entry !== "object" || entry === null || typeof entry.name !== "string" || entry.name === "") return 'a prompt without a "name"';
  const args: McpPromptArgument[] = [];
  if (entry.arguments !== undefined) {
    if (!Array.isArray(entry.arguments)) return `prompt ${entry.name}: "arguments" must be a list`;
    for (const arg of entry.arguments as unknown[]) {
      const a = arg as Record<string, unknown> | null;
      if (typeof a !== "object" || a === null || typeof a.name !== "string" || a.name === "") return `prompt ${entry.name}: an argument without a "name"`;
      args.push({ name: a.name, required: a.required === true, ...(typeof a.description === "string" && { description: a.description }) });
    }
  }
  return { name: entry.name, arguments: args, ...(typeof entry.description === "string" && { description: entry.description }) };
}

/** The connection's prompts as commands. A prompt's text is cut at `maxChars` (MAX_MCP_OUTPUT_TOKENS,
 * as a tool call's output is): it stays in every later request of the conversation. */
export function promptCommands(connection: McpConnection, prompts: readonly McpPromptInfo[], timeout: number, maxChars: number): McpPromptCommand[] {
  const server = connection.config.name;
  return prompts.map((info) => ({
    name: mcpToolName(server, info.name),
    server,
    ...(info.description !== undefined && { description: info.description }),
    arguments: info.arguments,
    get: async (args, signal) => truncateOutput(await getPrompt(connection, info.name, args, signal, timeout), maxChars),
  }));
}

async function getPrompt(connection: McpConnection, name: string, args: Record<string, string>, signal: AbortSignal, timeout: number): Promise<string> {
  const server = connection.config.name;
  if (connection.state !== "connected") throw new Error(notConnectedMessage(connection));
  let result: z.infer<typeof GetPromptResult>;
  try {
    result = await withRequestSignal(signal, (requestSignal) =>
      connection.client.request({ method: "prompts/get", params: { name, arguments: args } }, GetPromptResult, { signal: requestSignal, timeout }),
    );
  } catch (error) {
    throw new Error(`MCP server ${server} could not give prompt ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(result.messages)) throw new Error(`MCP server ${server} answered prompt ${name} without a list of "messages"`);
  // Each message holds one content item, of the kinds a tool result has; images cannot go into a
  // typed prompt and are named instead.
  const parts = result.messages.map((message: unknown) => {
    const content = (message as { content?: unknown } | null)?.content;
    return convertToolResult({ content: [content] }).content;
  });
  const text = parts.filter((part) => part.trim() !== "").join("\n\n");
  if (text === "") throw new Error(`MCP server ${server} answered prompt ${name} with no text`);
  return text;
}
