// Which tools go into each model request. With many tools, MCP tools are deferred: the request
// carries only their names (in the system prompt) and ToolSearch, which loads the ones the model
// asks for into the following requests.
import { z } from "zod";
import { isMcpToolName } from "../mcp/names.ts";
import type { Tool } from "../types.ts";
import { TOOL_SEARCH_NAME, toolSearchTool } from "./tool-search.ts";
import { wholeSetting, type EnvSetting } from "../env/number.ts";

export const DEFAULT_DEFER_THRESHOLD = 40;

export type ToolRegistryOptions = {
  /** Deferral starts when there are more tools than this. Default: env HARNESS_DEFER_TOOLS_AFTER,
   * else 40. */
  deferThreshold?: number;
  /** Source of HARNESS_DEFER_TOOLS_AFTER; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
};

export type ToolRegistry = {
  /** The `tools` of the next model request: every tool that is not deferred, then ToolSearch (when
   * something is deferred), then the deferred tools loaded so far in the order they were loaded, so
   * that the start of the list stays the same from request to request. */
  visibleTools(): Tool[];
  /** One line per deferred tool, `name: first sentence of its description`, for the system prompt;
   * "" when nothing is deferred. It lists loaded tools too, so it does not change during a
   * conversation. */
  deferredIndex(): string;
  /** The tool to run for a call by this name. A deferred tool that is not loaded yet comes back as
   * a stand-in whose result is an error telling the model to load it with ToolSearch first. Look
   * tools up here at call time: loading changes what a name resolves to. */
  get(name: string): Tool | undefined;
  /** Makes deferred tools visible from the next request on (unknown names are ignored). Used by
   * ToolSearch, and to restore the loaded set of a resumed conversation. */
  markLoaded(names: Iterable<string>): void;
  /** Names of the deferred tools loaded so far, in load order. */
  loaded(): string[];
};

export function createToolRegistry(tools: readonly Tool[], options: ToolRegistryOptions = {}): ToolRegistry {
  const threshold = options.deferThreshold ?? deferThresholdSetting(options.env ?? process.env).value ?? DEFAULT_DEFER_THRESHOLD;
  const defer = tools.length > threshold && tools.some((tool) => isMcpToolName(tool.name));
  const eager = defer ? tools.filter((tool) => !isMcpToolName(tool.name)) : [...tools];
  const deferred = defer ? tools.filter((tool) => isMcpToolName(tool.name)) : [];
  const deferredByName = new Map(deferred.map((tool) => [tool.name, tool]));
  const eagerByName = new Map(eager.map((tool) => [tool.name, tool]));
  const loadedNames = new Set<string>();
  const standIns = new Map<string, Tool>();

  const markLoaded = (names: Iterable<string>): void => {
    for (const name of names) if (deferredByName.has(name)) loadedNames.add(name);
  };
  const search = defer
    ? toolSearchTool({ deferred: () => deferred, isVisible: (name) => eagerByName.has(name) || loadedNames.has(name), markLoaded })
    : undefined;
  if (search) eagerByName.set(search.name, search);
  const index = deferred
    .map((tool) => {
      const summary = firstSentence(tool.description);
      return summary ? `${tool.name}: ${summary}` : tool.name;
    })
    .join("\n");

  return {
    visibleTools: () => [...eager, ...(search ? [search] : []), ...[...loadedNames].map((name) => deferredByName.get(name) as Tool)],
    deferredIndex: () => index,
    get(name) {
      const tool = eagerByName.get(name);
      if (tool) return tool;
      const deferredTool = deferredByName.get(name);
      if (!deferredTool) return undefined;
      if (loadedNames.has(name)) return deferredTool;
      let standIn = standIns.get(name);
      if (!standIn) {
        standIn = notLoaded(deferredTool);
        standIns.set(name, standIn);
      }
      return standIn;
    },
    markLoaded,
    loaded: () => [...loadedNames],
  };
}

/** Stands in for a deferred tool that the model calls without having loaded it. */
function notLoaded(tool: Tool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    parameters: z.unknown(),
    inputSchema: tool.inputSchema,
    execute: async () => ({
      content: `${tool.name} is a deferred tool and its schema has not been loaded yet. Call ${TOOL_SEARCH_NAME} with query "select:${tool.name}" first, then call ${tool.name} again with arguments that match its schema.`,
      isError: true,
    }),
  };
}

const MAX_SUMMARY_CHARS = 200;

function firstSentence(description: string): string {
  const text = description.trim().split(/\n\s*\n/)[0].replace(/\s+/g, " ");
  const end = text.search(/[.!?](\s|$)/);
  const sentence = end === -1 ? text : text.slice(0, end + 1);
  return sentence.length <= MAX_SUMMARY_CHARS ? sentence : `${sentence.slice(0, MAX_SUMMARY_CHARS - 1)}…`;
}

/** HARNESS_DEFER_TOOLS_AFTER: a whole number of tools. */
export function deferThresholdSetting(env: Readonly<Record<string, string | undefined>>): EnvSetting {
  return wholeSetting(env, "HARNESS_DEFER_TOOLS_AFTER", "tools", 0);
}
