// MCP resources a prompt names as `@server:uri` ("Compare @postgres:schema://users with
// @docs:file://model"), read as the prompt is sent and put after it, as Claude Code attaches them.
// They are read with ReadMcpResourceTool, through the same gate as the model's calls, and the user
// sees them as tool calls. Only the names of connected servers that have resources count: any other
// `@word:thing` is text.
import { READ_RESOURCE_TOOL } from "../../mcp/resource-names.ts";
import { runCommandCalls } from "../commands/calls.ts";
import { attached, type ExpandedText } from "./expanded-text.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** At most this many resources are read for one prompt. */
const MAX_RESOURCES = 20;
const MENTION = /(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)/g;

/** The resources `text` names on the given servers, in order, each once. Punctuation that ends a
 * sentence is not part of the URI. */
export function resourceMentions(text: string, servers: readonly string[]): { server: string; uri: string }[] {
  const found: { server: string; uri: string }[] = [];
  for (const match of text.matchAll(MENTION)) {
    const server = match[1] as string;
    const uri = (match[2] as string).replace(/[.,;:!?)\]'"]+$/, "");
    if (!servers.includes(server) || uri === "" || found.some((m) => m.server === server && m.uri === uri)) continue;
    found.push({ server, uri });
    if (found.length === MAX_RESOURCES) break;
  }
  return found;
}

export async function attachMentionedResources(ctx: RunContext, state: RunState, text: string): Promise<ExpandedText> {
  const mentions = resourceMentions(text, ctx.setup.mcpResourceServers);
  if (mentions.length === 0) return { text, images: [] };
  const results = await runCommandCalls(
    ctx,
    state,
    mentions.map(({ server, uri }) => ({ name: READ_RESOURCE_TOOL, input: { server, uri } })),
  );
  return attached(
    text,
    results.map((result, i) => {
      const { server, uri } = mentions[i]!;
      return { ...result, mention: `@${server}:${uri}`, shown: `${server}:${uri}` };
    }),
  );
}
