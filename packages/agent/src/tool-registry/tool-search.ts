// The ToolSearch tool: finds deferred tools and loads their schemas for the following requests.
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import type { Tool } from "../types.ts";
import { parseToolQuery, searchTools } from "./search.ts";

export const TOOL_SEARCH_NAME = "ToolSearch";
export const DEFAULT_SEARCH_RESULTS = 5;

const DESCRIPTION = `Fetches the full schema definitions of deferred tools so that they can be called.

Deferred tools are listed by name (with a one-line summary) in the system prompt. Until one is fetched only its name is known: it has no parameter schema yet and calling it fails. This tool matches a query against the deferred tools, returns the complete JSON Schema of each match, and makes the matched tools callable from the next step on.

Query forms:
- "select:mcp__github__create_issue,mcp__slack__post_message" fetches exactly these tools by name
- "github issue" keyword search over names and descriptions, best max_results matches
- "+slack send" requires "slack" in the tool name and ranks by the other words`;

export type ToolSearchHost = {
  /** Every deferred tool, loaded or not. */
  deferred(): readonly Tool[];
  /** Names of tools that are visible without loading. */
  isVisible(name: string): boolean;
  markLoaded(names: readonly string[]): void;
};

export function toolSearchTool(host: ToolSearchHost): Tool {
  return defineTool({
    name: TOOL_SEARCH_NAME,
    readOnly: true,
    description: DESCRIPTION,
    parameters: z.strictObject({
      query: z.string().describe('Query to find deferred tools: "select:<name>[,<name>…]" for exact names, or keywords to search'),
      max_results: z.number().int().min(1).optional().describe(`Maximum number of results to return (default: ${DEFAULT_SEARCH_RESULTS})`),
    }),
    async execute({ query, max_results }) {
      const deferred = host.deferred();
      const parsed = parseToolQuery(query);
      const notes: string[] = [];
      let matches: Tool[];
      if (parsed.kind === "select") {
        const byName = new Map(deferred.map((tool) => [tool.name, tool]));
        matches = [];
        for (const name of parsed.names) {
          const tool = byName.get(name);
          if (tool) {
            if (!matches.includes(tool)) matches.push(tool);
          } else if (host.isVisible(name)) notes.push(`${name} is already available; call it directly.`);
          else notes.push(`No deferred tool is named ${name}.`);
        }
      } else {
        matches = searchTools(deferred, parsed.required, parsed.optional, max_results ?? DEFAULT_SEARCH_RESULTS);
      }
      if (!matches.length) {
        const hint = parsed.kind === "select" ? "" : " Try other keywords, or select:<name> with a name from the deferred tool list.";
        return { content: [...notes, `No matching deferred tools for ${JSON.stringify(query)} (${deferred.length} deferred tools).${hint}`].join("\n") };
      }
      host.markLoaded(matches.map((tool) => tool.name));
      const functions = matches.map(
        (tool) => `<function>${JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.inputSchema })}</function>`,
      );
      const header = `Loaded ${matches.length} tool${matches.length === 1 ? "" : "s"}; ${matches.length === 1 ? "it is" : "they are"} callable from the next step on:`;
      return { content: [...notes, header, "<functions>", ...functions, "</functions>"].join("\n") };
    },
  });
}
