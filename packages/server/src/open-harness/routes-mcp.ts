// MCP servers over the Open Harness API, read only: those a session's runs work with, as its last
// run reported them when it was set up (run.ready: each server's name and status, and the tools it
// gave). Connecting, changing and disconnecting servers is the settings files' (501).
import type { Context } from "hono";
import { z } from "zod";
import type { RunAvailable } from "@harness/protocol";
import { ApiError } from "./errors.ts";
import { H, handle, harnessOf, queryOf, type OpenHarness } from "./common.ts";
import { SessionQuery, sessionOf } from "./session-of.ts";
import { page, PaginationSchema } from "./shapes.ts";

const McpStatus = z.enum(["connected", "disconnected", "error"]);
const ListQuery = PaginationSchema.extend({ session_id: SessionQuery.shape.session_id, status: McpStatus.optional() }).passthrough();

/** The spec's three statuses for the run's ("connected", "failed", "needs-auth", "pending"…). */
function statusOf(status: string): z.infer<typeof McpStatus> {
  if (status === "connected") return "connected";
  return status === "failed" ? "error" : "disconnected";
}

/** A server as the spec has it. The run reports no transport, nor what its tools take or do: the
 * tools have their names only; resources and prompts are not reported. */
function serverShape(server: { name: string; status: string }, available: RunAvailable) {
  const prefix = `mcp__${server.name}__`;
  return {
    id: server.name,
    name: server.name,
    status: statusOf(server.status),
    harness_status: server.status,
    tools: available.tools.filter((tool) => tool.startsWith(prefix)).map((tool) => ({ name: tool.slice(prefix.length), description: "", input_schema: {} })),
    resources: [],
    prompts: [],
  };
}

/** The servers of the session the query names, as its last run had them (none before its first). */
async function serversOf(oh: OpenHarness, c: Context) {
  harnessOf(c);
  const { session_id } = queryOf(c, SessionQuery);
  const { read } = await sessionOf(oh, c, session_id);
  const available = read.state.available;
  return available ? available.mcpServers.map((server) => serverShape(server, available)) : [];
}

async function serverNamed(oh: OpenHarness, c: Context) {
  const id = c.req.param("serverId")!;
  const server = (await serversOf(oh, c)).find((s) => s.id === id);
  if (!server) throw new ApiError(404, "mcp_server_not_found", `no MCP server "${id}" in the session's last run (they come from its settings files: .mcp.json, ~/.claude.json)`);
  return server;
}

export function mountMcpRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/mcp-servers`,
    handle(async (c) => {
      const query = queryOf(c, ListQuery);
      const all = await serversOf(oh, c);
      return c.json(page(all.filter((server) => (query.status ?? server.status) === server.status), query));
    }),
  );
  app.get(
    `${H}/mcp-servers/:serverId`,
    handle(async (c) => c.json({ server: await serverNamed(oh, c) })),
  );
  app.get(
    `${H}/mcp-servers/:serverId/tools`,
    handle(async (c) => c.json({ tools: (await serverNamed(oh, c)).tools })),
  );
}
