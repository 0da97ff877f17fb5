// The MCP tools of a session's servers now, with their descriptions and input schemas, as the
// servers give them when its runner starts them (mcp-probe.ts), by the names the model calls them.
import type { Context } from "hono";
import type { OpenHarness } from "./common.ts";
import { NOT_STARTED, serversNow } from "./mcp-servers-now.ts";
import type { ToolShape } from "./routes-tools.ts";

/** Undefined when they could not be asked (a run under way, a backend whose runners do not start
 * them, a runner that failed): the caller then goes by the last run's names. */
export async function mcpToolsNow(oh: OpenHarness, c: Context): Promise<ToolShape[] | undefined> {
  if (oh.backend !== "builtin") return undefined;
  const { settings, servers } = await serversNow(oh, c);
  if (!servers.some((server) => !NOT_STARTED.has(server.harness_status))) return [];
  let result;
  try {
    result = await oh.probeMcp({ userId: settings.userId, sessionId: settings.sessionId, signal: c.req.raw.signal, operation: "tools.list" });
  } catch {
    return undefined;
  }
  // Imported when asked, as the builtin agent's tools are.
  const { mcpToolName } = await import("@harness/agent");
  return result.servers
    .filter((server) => server.state === "connected")
    .flatMap((server) =>
      server.tools.map((tool): ToolShape => {
        const name = mcpToolName(server.name, tool.name);
        return { id: name, name, description: settings.hide(tool.description), source: "mcp", source_id: server.name, input_schema: tool.inputSchema };
      }),
    );
}
