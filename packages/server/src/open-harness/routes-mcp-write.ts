// MCP servers connected, changed and disconnected over the Open Harness API, in the project's
// .mcp.json in the session's workspace (session_id in the query), as `claude mcp add --scope
// project` keeps them. Every .mcp.json server starts once approved; the caller who connects one (or
// gives one a transport) approves it for the session: the approval is kept by the server
// (sqlite/mcp-approvals.ts), not in the workspace, and counts for that entry as written only (an entry
// changed since by anyone else waits for the user's approval again, as one the API did not write
// does). A renamed server keeps its approval; a disconnected one loses it. The answer says when the
// next run will not start the server. A server's id is its name, as the read routes have it; one of
// the user's configuration, the managed one or a plugin is not written (403). Nothing the runs would
// refuse is written (400: the entry as their loader checks it; 403: the settings' MCP policy).
import { existsSync } from "node:fs";
import type { Context } from "hono";
import { z } from "zod";
import { isJsonObject } from "@harness/agent/json-text";
import { parseServerEntry } from "@harness/agent/mcp-entry";
import { mcpEntryFingerprint } from "@harness/agent/mcp-load-config";
import { mcpPolicyBlocks } from "@harness/agent/mcp-policy";
import { MAX_MCP_APPROVALS } from "@harness/protocol";
import { bodyOf, check } from "../sessions/api.ts";
import { ApiError } from "./errors.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { configOf, transportOf, type McpSetup } from "./mcp-config.ts";
import { SessionQuery, stillOwned } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";
import { editJsonFile } from "./settings-edit.ts";

const Name = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, hyphens and underscores");
const strings = z.record(z.string(), z.string());
const Transport = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("stdio"), command: z.string(), args: z.array(z.string()).optional(), env: strings.optional() }),
    z.strictObject({ type: z.literal("http"), url: z.string(), headers: strings.optional() }),
    z.strictObject({ type: z.literal("sse"), url: z.string(), headers: strings.optional() }),
  ],
  { error: 'must be { "type": "stdio", "command", "args"? } or { "type": "http" | "sse", "url" }' },
);
const ConnectBody = z.strictObject({ name: Name, transport: Transport, auto_reconnect: z.boolean().optional() });
const UpdateBody = z.strictObject({ name: Name.optional(), transport: Transport.optional(), auto_reconnect: z.boolean().optional() });
type Transport = z.infer<typeof Transport>;

/** The caller approves, for the session, the entry it writes as server `name` (409 past the most a
 * session's runs can be given). */
function approve(oh: OpenHarness, settings: SessionSettings, name: string, entry: Record<string, unknown>, operation: string, replacing = name): void {
  const approved = oh.mcpApprovals.list(settings.userId, settings.sessionId);
  if (approved.length >= MAX_MCP_APPROVALS && !approved.some((grant) => grant.name === name || grant.name === replacing)) {
    throw new ApiError(409, "too_many_mcp_servers", `the session has ${approved.length} MCP servers connected over the API, the most it may have: disconnect one first`, operation);
  }
  oh.mcpApprovals.put(settings.userId, settings.sessionId, { name, entry: mcpEntryFingerprint(entry) });
}

/** The keys of an entry that say how to reach the server; the others (Claude Code's and a run's own,
 * such as oauth) are kept when the transport changes to one of the same kind. */
const TRANSPORT_KEYS = ["type", "command", "args", "env", "url", "headers"];

function entryOf(transport: Transport, before: Record<string, unknown> = {}): Record<string, unknown> {
  const sameKind = (before.url === undefined) === (transport.type === "stdio");
  const kept = sameKind ? Object.fromEntries(Object.entries(before).filter(([key]) => !TRANSPORT_KEYS.includes(key))) : {};
  return { ...transport, ...kept };
}

function refuseNoReconnect(autoReconnect: boolean | undefined, operation: string): void {
  if (autoReconnect === false) throw new ApiError(501, "not_implemented", "auto_reconnect: false is not supported: each run connects to its servers as it starts", operation);
}

/** Refused (400) when the runs would not load `entry` as server `name`, (403) when the settings'
 * policy keeps it from starting. */
function checkEntry(setup: McpSetup, name: string, entry: Record<string, unknown>, operation: string): void {
  const parsed = parseServerEntry(name, entry, { scope: "project", file: ".mcp.json", keyPrefix: "transport" }, setup.env);
  if (!parsed.ok) throw new ApiError(400, "invalid_request", `the runs would not start this server: ${parsed.diagnostic.message}${parsed.diagnostic.key && parsed.diagnostic.key !== "transport" ? ` (${parsed.diagnostic.key})` : ""}`, operation);
  const blocked = mcpPolicyBlocks(parsed.server, setup.policy);
  if (blocked) throw new ApiError(403, "forbidden", `MCP server "${name}": the settings' MCP policy keeps it from running (${blocked})`, operation);
}

/** 403 naming where a server the project's .mcp.json does not hold comes from, if it is anywhere. */
function notProjects(setup: McpSetup, name: string, operation: string): ApiError | undefined {
  if (name.startsWith("plugin:")) return new ApiError(403, "forbidden", `MCP server "${name}" comes from a plugin, which configures its own servers`, operation);
  const server = setup.config.servers.find((s) => s.name === name);
  if (!server) return undefined;
  const where: Record<string, string> = {
    user: "the user's configuration (~/.claude.json), which this API does not write",
    local: "the user's own configuration of this project (~/.claude.json), which this API does not write",
    settings: "the user's settings (~/.claude/settings.json), which this API does not write",
    managed: "the machine's managed MCP configuration, which only its administrator changes",
  };
  return new ApiError(403, "forbidden", `MCP server "${name}" comes from ${where[server.scope] ?? `the ${server.scope} configuration, which this API does not write`}`, operation);
}

/** The server as the spec has it, as the next run will find it (its transport shown through the
 * logs' secret-hiding rule); `warning` when that run will not start it. */
async function answer(oh: OpenHarness, c: Context, name: string, entry: Record<string, unknown>) {
  const settings = await sessionSettings(oh, c);
  const setup = await configOf(oh, settings);
  const pending = setup.config.disabled.find((server) => server.name === name);
  const shadowed = setup.config.servers.find((server) => server.name === name && server.scope !== "project");
  const warning = pending
    ? `the next run does not start it: ${pending.reason}`
    : shadowed
      ? `the next run starts the server of that name ${shadowed.scope === "managed" ? "of the managed configuration" : "of the user's configuration"} instead`
      : undefined;
  return {
    id: name,
    name,
    transport: transportOf(entry, settings.hide),
    status: "disconnected" as const,
    harness_status: pending?.reason.startsWith("not approved") ? "pending approval" : pending ? "disabled" : "pending",
    tools: [],
    resources: [],
    prompts: [],
    ...(warning && { warning }),
  };
}

/** The `mcpServers` object of .mcp.json's value, refused (409) when it is something else. */
function serversIn(value: Record<string, unknown>, file: string): Record<string, unknown> {
  const servers = value.mcpServers ?? {};
  if (!isJsonObject(servers)) throw new ApiError(409, "invalid_settings_file", `${file}: "mcpServers" is not an object; it was left as it is: mend it first`);
  return servers;
}

export function mountMcpWriteRoutes(oh: OpenHarness): void {
  const { app } = oh;
  const setupOf = async (c: Context, operation: string) => {
    const settings = await sessionSettings(oh, c);
    const setup = await configOf(oh, settings);
    if (existsSync(setup.managedFile)) throw new ApiError(403, "forbidden", `the machine's managed MCP configuration (${setup.managedFile}) allows its own servers only`, operation);
    return { settings, setup, file: setup.file(), stillThere: stillOwned(oh, c, queryOf(c, SessionQuery).session_id) };
  };
  app.post(
    `${H}/mcp-servers`,
    handle(async (c) => {
      const operation = "mcp.connect";
      const { settings, setup, file, stillThere } = await setupOf(c, operation);
      const body = check(ConnectBody, await bodyOf(c));
      refuseNoReconnect(body.auto_reconnect, operation);
      const entry = entryOf(body.transport);
      checkEntry(setup, body.name, entry, operation);
      await editJsonFile(settings.place.cwd, file, stillThere, (value) => {
        const servers = serversIn(value, file);
        if (Object.hasOwn(servers, body.name)) throw new ApiError(409, "mcp_server_exists", `MCP server "${body.name}" is in ${file} already: change it with PATCH, or disconnect it first`, operation);
        // Approved before it is written: a server written is never one its writer has not approved.
        approve(oh, settings, body.name, entry, operation);
        return { value: { ...value, mcpServers: { ...servers, [body.name]: entry } }, result: undefined };
      });
      return c.json({ server: await answer(oh, c, body.name, entry) }, 201);
    }),
  );
  app.patch(
    `${H}/mcp-servers/:serverId`,
    handle(async (c) => {
      const operation = "mcp.update";
      const id = c.req.param("serverId")!;
      const { settings, setup, file, stillThere } = await setupOf(c, operation);
      const body = check(UpdateBody, await bodyOf(c));
      refuseNoReconnect(body.auto_reconnect, operation);
      const name = body.name ?? id;
      const entry = await editJsonFile(settings.place.cwd, file, stillThere, (value) => {
        const servers = serversIn(value, file);
        if (!Object.hasOwn(servers, id)) throw notProjects(setup, id, operation) ?? notFound(id, file);
        const before = servers[id];
        if (name !== id && Object.hasOwn(servers, name)) throw new ApiError(409, "mcp_server_exists", `MCP server "${name}" is in ${file} already`, operation);
        const old = isJsonObject(before) ? before : {};
        const next = body.transport ? entryOf(body.transport, old) : old;
        checkEntry(setup, name, next, operation);
        // The caller approves what it writes: a transport it gives, or an entry it approved before
        // (renamed, it keeps the approval). A rename alone approves no entry it did not.
        const approvedBefore = oh.mcpApprovals.list(settings.userId, settings.sessionId).some((grant) => grant.name === id && grant.entry === mcpEntryFingerprint(before));
        if (body.transport || approvedBefore) approve(oh, settings, name, next, operation, id);
        // A renamed server keeps its place among the others.
        const renamed = Object.fromEntries(Object.entries(servers).map(([key, server]) => (key === id ? [name, next] : [key, server])));
        return { value: { ...value, mcpServers: renamed }, result: next };
      });
      if (name !== id) oh.mcpApprovals.delete(settings.userId, settings.sessionId, id);
      return c.json({ server: await answer(oh, c, name, entry) });
    }),
  );
  app.delete(
    `${H}/mcp-servers/:serverId`,
    handle(async (c) => {
      const operation = "mcp.disconnect";
      const id = c.req.param("serverId")!;
      const { settings, setup, file, stillThere } = await setupOf(c, operation);
      await editJsonFile(settings.place.cwd, file, stillThere, (value) => {
        const servers = serversIn(value, file);
        if (!Object.hasOwn(servers, id)) throw notProjects(setup, id, operation) ?? notFound(id, file);
        const { [id]: _gone, ...rest } = servers;
        return { value: { ...value, mcpServers: rest }, result: undefined };
      });
      oh.mcpApprovals.delete(settings.userId, settings.sessionId, id);
      return c.body(null, 204);
    }),
  );
}

const notFound = (id: string, file: string) => new ApiError(404, "mcp_server_not_found", `no MCP server "${id}" in ${file} or the user's configuration`);
