// What a user's message names, attached as it is sent: the files it names with `@path` (files.ts),
// then the MCP resources it names as `@server:uri` (mcp-resources.ts), in the order a prompt's are.
// A steer's text comes here; a prompt's goes through its command's expansion first (run-agent.ts).
import { attachMentionedFiles } from "./files.ts";
import { attachMentionedResources } from "./mcp-resources.ts";
import type { ExpandedText } from "./expanded-text.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

export async function attachMentions(ctx: RunContext, state: RunState, text: string): Promise<ExpandedText> {
  const files = await attachMentionedFiles(ctx, state, text);
  const resources = await attachMentionedResources(ctx, state, files.text);
  return { text: resources.text, images: [...files.images, ...resources.images] };
}
