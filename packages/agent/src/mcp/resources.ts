// MCP resources (documents, records, schemas a server offers to be read) as two tools with Claude
// Code's names and inputs: ListMcpResourcesTool and ReadMcpResourceTool. They exist in a run only
// when a connected server says it has resources. Answers are read with loose schemas, as tools/call
// answers are: one malformed item is named where it stands and the rest is kept.
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import type { Tool, ToolOutput } from "../types.ts";
import type { McpConnection } from "./connection.ts";
import { listPages } from "./list-pages.ts";
import { withRequestSignal } from "./request-signal.ts";
import { fitOutputImages } from "../tools/image/fit-image.ts";
import { limitsOf } from "../tools/state.ts";
import { convertToolResult } from "./tool-result.ts";
import { LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL } from "./resource-names.ts";

/** Pages of resources/list read from one server; a server that pages further is cut short, and the
 * listing says so. */
const MAX_RESOURCE_PAGES = 20;

const ReadResult = z.object({ contents: z.unknown() });

export type ResourceLimits = { callTimeoutMs: number; maxOutputChars: number };

/** Whether the server said, in its handshake, that it has resources. */
export function hasResources(connection: McpConnection): boolean {
  return connection.state === "connected" && connection.client.getServerCapabilities()?.resources !== undefined;
}

/** The two tools over the connected servers that have resources (`servers()` is asked at each
 * call, so a server that has died since is no longer among them). */
export function resourceTools(servers: () => readonly McpConnection[], limits: ResourceLimits): Tool[] {
  const find = (name: string): McpConnection | string => {
    const all = servers();
    const known = all.map((connection) => connection.config.name);
    return all.find((connection) => connection.config.name === name) ?? `no MCP server "${name}" has resources; the servers with resources are: ${known.length ? known.join(", ") : "none"}`;
  };
  const list = defineTool({
    name: LIST_RESOURCES_TOOL,
    description:
      "Lists the resources the connected MCP servers offer to be read (documents, records, schemas), each with its server, URI, name and type. Give `server` to list one server's only. Read one with ReadMcpResourceTool.",
    parameters: z.strictObject({ server: z.string().optional().describe("The name of one MCP server whose resources to list") }),
    readOnly: true,
    async execute({ server }, ctx): Promise<ToolOutput> {
      let chosen = servers();
      if (server !== undefined) {
        const found = find(server);
        if (typeof found === "string") return { content: found, isError: true };
        chosen = [found];
      }
      const listed = await Promise.all(chosen.map((connection) => listResources(connection, ctx.signal, limits.callTimeoutMs)));
      const resources = listed.flatMap((entry) => entry.resources);
      const problems = listed.flatMap((entry) => entry.problems);
      if (resources.length === 0 && problems.length === 0) return { content: "No resources found. MCP servers may still offer tools even when they have no resources." };
      const text = resources.length ? JSON.stringify(resources, null, 2) : "No resources listed.";
      return { content: problems.length ? `${text}\n\n${problems.join("\n")}` : text };
    },
  });
  const read = defineTool({
    name: READ_RESOURCE_TOOL,
    description: "Reads one resource of an MCP server by its URI, as ListMcpResourcesTool lists them.",
    parameters: z.strictObject({
      server: z.string().min(1).describe("The name of the MCP server"),
      uri: z.string().min(1).describe("The URI of the resource to read"),
    }),
    readOnly: true,
    async execute({ server, uri }, ctx): Promise<ToolOutput> {
      const found = find(server);
      if (typeof found === "string") return { content: found, isError: true };
      return fitOutputImages(await readResource(found, uri, ctx.signal, limits.callTimeoutMs), limitsOf(ctx.state).maxImageBytes, ctx.signal);
    },
  });
  return [{ ...list, maxOutputChars: limits.maxOutputChars }, { ...read, maxOutputChars: limits.maxOutputChars }];
}

export type ListedResource = { server: string; uri: string; name: string; mimeType?: string; description?: string };

/** The resources `connection` lists (none when it has none), and what was wrong with the listing. */
export async function listResources(connection: McpConnection, signal: AbortSignal, timeout: number): Promise<{ resources: ListedResource[]; problems: string[] }> {
  const server = connection.config.name;
  const resources: ListedResource[] = [];
  const problems: string[] = [];
  if (!hasResources(connection)) return { resources, problems };
  try {
    const more = () => problems.push(`MCP server ${server} has more resources than ${MAX_RESOURCE_PAGES} pages; the rest are not listed.`);
    for await (const page of listPages(connection.client, "resources/list", MAX_RESOURCE_PAGES, { signal, timeout }, more)) {
      for (const raw of page) {
        const entry = raw as Record<string, unknown> | null;
        if (typeof entry !== "object" || entry === null || typeof entry.uri !== "string" || typeof entry.name !== "string") {
          problems.push(`MCP server ${server} listed a resource without a "uri" and a "name"; it is left out.`);
          continue;
        }
        resources.push({
          server,
          uri: entry.uri,
          name: entry.name,
          ...(typeof entry.mimeType === "string" && { mimeType: entry.mimeType }),
          ...(typeof entry.description === "string" && { description: entry.description }),
        });
      }
    }
  } catch (error) {
    problems.push(`Listing the resources of MCP server ${server} failed: ${messageOf(error)}`);
  }
  return { resources, problems };
}

/** The resource's contents for the model: texts as they are, images as images, other binary
 * contents named with their type and size. */
export async function readResource(connection: McpConnection, uri: string, signal: AbortSignal, timeout: number): Promise<ToolOutput> {
  const server = connection.config.name;
  let result: z.infer<typeof ReadResult>;
  try {
    result = await withRequestSignal(signal, (requestSignal) => connection.client.request({ method: "resources/read", params: { uri } }, ReadResult, { signal: requestSignal, timeout }));
  } catch (error) {
    return { content: `Reading ${uri} from MCP server ${server} failed: ${messageOf(error)}`, isError: true };
  }
  if (!Array.isArray(result.contents)) return { content: `MCP server ${server} answered the read of ${uri} without a list of "contents"`, isError: true };
  // Each item is a text or a blob; as embedded resources they read as tools/call content does.
  const items = result.contents.map((item: unknown) => {
    const entry = item as { blob?: unknown; mimeType?: unknown } | null;
    const image = typeof entry?.blob === "string" && typeof entry.mimeType === "string" && entry.mimeType.startsWith("image/");
    return image ? { type: "image", data: entry.blob, mimeType: entry.mimeType } : { type: "resource", resource: item };
  });
  if (items.length === 0) return { content: `MCP server ${server} has nothing at ${uri}` };
  return convertToolResult({ content: items });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
