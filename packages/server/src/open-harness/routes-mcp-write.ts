// MCP servers connected, changed and disconnected over the Open Harness API, in the project's
// .mcp.json in the session's workspace (session_id in the query), as `claude mcp add --scope
// project` keeps them. The session's next run starts what is there, once approved as every .mcp.json
// server must be (in the user's settings or ~/.claude.json, which this API does not write): the
// answer says when it is not. A server's id is its name, as the read routes have it; one of the
// user's configuration, the managed one or a plugin is not written (403). Nothing the runs would
// refuse is written (400: the entry as their loader checks it; 403: the settings' MCP policy).
import { existsSync } from "node:fs";
import path from "node:path";
import type { Context } from "hono";
import { z } from "zod";
import { isJsonObject } from "@harness/agent/json-text";
import { DEFAULT_MANAGED_SETTINGS_PATH } from "@harness/agent/managed-settings-path";
import { parseServerEntry } from "@harness/agent/mcp-entry";
import { loadMcpConfig } from "@harness/agent/mcp-load-config";
import { mcpPolicyBlocks, mcpPolicyOf } from "@harness/agent/mcp-policy";
import { bodyOf, check } from "../sessions/api.ts";
import { ApiError } from "./errors.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { SessionQuery, stillOwned } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";
import { editJsonFile, inWorkspace } from "./settings-edit.ts";

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

/** The keys of an entry that say how to reach the server; the others (Claude Code's and a run's own,
 * such as oauth) are kept when the transport changes to one of the same kind. */
const TRANSPORT_KEYS = ["type", "command", "args", "env", "url", "headers"];

function entryOf(transport: Transport, before: Record<string, unknown> = {}): Record<string, unknown> {
  const sameKind = (before.url === undefined) === (transport.type === "stdio");
  const kept = sameKind ? Object.fromEntries(Object.entries(before).filter(([key]) => !TRANSPORT_KEYS.includes(key))) : {};
  return { ...transport, ...kept };
}

/** The spec's transport of a .mcp.json entry (`env` and `headers` left out: they may hold secrets). */
function transportOf(entry: Record<string, unknown>, hide: (text: string) => string): Transport {
  if (entry.type === "http" || entry.type === "sse") return { type: entry.type, url: hide(String(entry.url)) };
  return { type: "stdio", command: hide(String(entry.command)), ...(Array.isArray(entry.args) && { args: entry.args.map((arg) => hide(String(arg))) }) };
}

function refuseNoReconnect(autoReconnect: boolean | undefined, operation: string): void {
  if (autoReconnect === false) throw new ApiError(501, "not_implemented", "auto_reconnect: false is not supported: each run connects to its servers as it starts", operation);
}

/** What the runs make of the session's MCP configuration now, with the paths this API writes. */
async function configOf(settings: SessionSettings) {
  const { place, loaded } = settings;
  const trusted = loaded.sources.filter((source) => source.scope === "user" || source.scope === "managed");
  const env = { ...process.env, ...loaded.settings.env };
  const managedFile = path.join(path.dirname(DEFAULT_MANAGED_SETTINGS_PATH), "managed-mcp.json");
  const config = await loadMcpConfig({
    projectRoot: place.projectRoot,
    home: place.home,
    settings: { mcpServers: trusted.reduce<Record<string, unknown> | undefined>((all, source) => (isJsonObject(source.settings.mcpServers) ? { ...all, ...source.settings.mcpServers } : all), undefined) },
    approvals: {
      enabledMcpjsonServers: trusted.flatMap((source) => source.settings.enabledMcpjsonServers ?? []),
      enableAllProjectMcpServers: trusted.some((source) => source.settings.enableAllProjectMcpServers === true),
    },
    managedFile,
    env,
  });
  const policy = mcpPolicyOf(
    loaded.sources.map((source) => ({ path: source.path, managed: source.scope === "managed", trusted: trusted.includes(source), settings: source.settings as Record<string, unknown> })),
    () => {},
  );
  const mcpJson = path.join(place.projectRoot, ".mcp.json");
  return { config, policy, env, managedFile, mcpJson, file: () => inWorkspace(place.cwd, mcpJson, `the project's ${mcpJson}`, place.home) };
}

type Config = Awaited<ReturnType<typeof configOf>>;

/** Refused (400) when the runs would not load `entry` as server `name`, (403) when the settings'
 * policy keeps it from starting. */
function checkEntry(setup: Config, name: string, entry: Record<string, unknown>, operation: string): void {
  const parsed = parseServerEntry(name, entry, { scope: "project", file: ".mcp.json", keyPrefix: "transport" }, setup.env);
  if (!parsed.ok) throw new ApiError(400, "invalid_request", `the runs would not start this server: ${parsed.diagnostic.message}${parsed.diagnostic.key && parsed.diagnostic.key !== "transport" ? ` (${parsed.diagnostic.key})` : ""}`, operation);
  const blocked = mcpPolicyBlocks(parsed.server, setup.policy);
  if (blocked) throw new ApiError(403, "forbidden", `MCP server "${name}": the settings' MCP policy keeps it from running (${blocked})`, operation);
}

/** 403 naming where a server the project's .mcp.json does not hold comes from, if it is anywhere. */
function notProjects(setup: Config, name: string, operation: string): ApiError | undefined {
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
  const setup = await configOf(settings);
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
    const setup = await configOf(settings);
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
        // A renamed server keeps its place among the others.
        const renamed = Object.fromEntries(Object.entries(servers).map(([key, server]) => (key === id ? [name, next] : [key, server])));
        return { value: { ...value, mcpServers: renamed }, result: next };
      });
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
      return c.body(null, 204);
    }),
  );
}

const notFound = (id: string, file: string) => new ApiError(404, "mcp_server_not_found", `no MCP server "${id}" in ${file} or the user's configuration`);
