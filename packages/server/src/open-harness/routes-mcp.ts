// MCP servers over the Open Harness API, read: those a session's settings configure now (session_id
// in the query), each with its status (mcp-servers-now.ts). What a server offers (its tools with
// their descriptions and input schemas, its resources, its prompts) and its health are asked of the
// server itself: the session's runner starts its servers as a run would, asks them and stops them
// (mcp-probe.ts); refused (409) while a run is under way in the session. A server a run would not
// start is not started: its resources and prompts are refused (409) saying why, its health is
// unhealthy with the reason. Connecting, changing and disconnecting servers is routes-mcp-write.ts.
import type { Context } from "hono";
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { ApiError } from "./errors.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { NOT_STARTED, probedShape, serversNow, type McpServerShape } from "./mcp-servers-now.ts";
import { SessionQuery } from "./session-of.ts";
import { page, PaginationSchema } from "./shapes.ts";

const McpStatus = z.enum(["connected", "disconnected", "error"]);
const ListQuery = PaginationSchema.extend({ session_id: SessionQuery.shape.session_id, status: McpStatus.optional() }).passthrough();
const HealthBody = z.strictObject({});

async function serverNamed(oh: OpenHarness, c: Context) {
  const id = c.req.param("serverId")!;
  const now = await serversNow(oh, c);
  const server = now.servers.find((s) => s.id === id);
  if (!server) throw new ApiError(404, "mcp_server_not_found", `no MCP server "${id}" in the session's configuration (.mcp.json, ~/.claude.json, the settings, enabled plugins)`);
  return { ...now, server };
}

/** The server as its runner finds it once started (none asked when a run would not start it), the
 * time the probe took, and the settings' secret-hiding rule. */
async function probed(oh: OpenHarness, c: Context, operation: string) {
  const { settings, server } = await serverNamed(oh, c);
  const hide = settings.hide;
  if (NOT_STARTED.has(server.harness_status)) return { server, found: undefined, ms: 0, hide };
  const started = performance.now();
  const result = await oh.probeMcp({ userId: settings.userId, sessionId: settings.sessionId, signal: c.req.raw.signal, operation });
  const found = result.servers.find((s) => s.name === server.name);
  return { server: found ? probedShape(server, found, hide) : server, found, ms: Math.round(performance.now() - started), hide };
}

/** What a started server offers, refused when it was not started or failed. */
async function offered(oh: OpenHarness, c: Context, operation: string): Promise<McpServerShape> {
  const { server, found } = await probed(oh, c, operation);
  if (NOT_STARTED.has(server.harness_status)) throw new ApiError(409, "mcp_server_not_started", `MCP server "${server.name}" is not started (${server.harness_status}): ${server.warning ?? ""}`.trim(), operation);
  if (!found || found.state !== "connected") throw new ApiError(502, "mcp_server_failed", `MCP server "${server.name}" did not start: ${server.warning ?? "it was not found among the servers the runner started"}`, operation);
  return server;
}

export function mountMcpRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/mcp-servers`,
    handle(async (c) => {
      const query = queryOf(c, ListQuery);
      const { servers } = await serversNow(oh, c);
      return c.json(page(servers.filter((server) => (query.status ?? server.status) === server.status), query));
    }),
  );
  app.get(
    `${H}/mcp-servers/:serverId`,
    handle(async (c) => c.json({ server: (await serverNamed(oh, c)).server })),
  );
  app.get(
    `${H}/mcp-servers/:serverId/tools`,
    handle(async (c) => c.json({ tools: (await offered(oh, c, "mcp.listTools")).tools })),
  );
  app.get(
    `${H}/mcp-servers/:serverId/resources`,
    handle(async (c) => c.json({ resources: (await offered(oh, c, "mcp.listResources")).resources })),
  );
  app.get(
    `${H}/mcp-servers/:serverId/prompts`,
    handle(async (c) => c.json({ prompts: (await offered(oh, c, "mcp.listPrompts")).prompts })),
  );
  app.post(
    `${H}/mcp-servers/:serverId/health`,
    handle(async (c) => {
      check(HealthBody, await bodyOf(c));
      const { server, found, ms, hide } = await probed(oh, c, "mcp.health");
      const connected = found?.state === "connected";
      const healthy = connected && found.latencyMs !== undefined && found.problems === undefined;
      return c.json({
        status: healthy ? "healthy" : connected ? "degraded" : "unhealthy",
        latency_ms: found?.latencyMs ?? ms,
        ...(server.warning !== undefined && { last_error: server.warning }),
        ...(found?.problems && { problems: found.problems.map(hide) }),
        harness_status: server.harness_status,
      });
    }),
  );
}
