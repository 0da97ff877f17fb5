// `harness mcp add|add-json|get|remove`: Claude Code's `claude mcp` commands, on the same files, so
// that a server added by either tool is seen by both.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseServerEntry } from "@harness/agent/mcp-entry";
import { isJsonObject, parseJsonText } from "@harness/agent/json-text";
import { mcpPolicyBlocks } from "@harness/agent/mcp-policy";
import type { CliIO } from "../cli.ts";
import { MCP_SCOPES, type McpCommand, type McpScope } from "./args.ts";
import { describeScope, McpFileError, mcpPlace, readConfig, scopeFile, serversIn, updateConfig, withServers, type McpPlace } from "./files.ts";

/** Claude Code's rule for the names `claude mcp add` takes. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export async function mcpCommand(command: McpCommand, io: CliIO): Promise<number> {
  try {
    const place = await mcpPlace(io.cwd, io.env);
    switch (command.action) {
      case "add":
        return await add(command.name, command.entry, command.scope, place, io, command.clientSecret);
      case "add-json": {
        const read = parseJsonText(command.json);
        if (read.kind !== "ok" || read.empty) throw new McpFileError(`the server's JSON is not valid JSON${read.kind === "error" ? ` (${read.message.replace(/^invalid JSON: /, "")})` : ""}`);
        return await add(command.name, read.value, command.scope, place, io, command.clientSecret);
      }
      case "get":
        return await get(command.name, place, io);
      case "remove":
        return await remove(command.name, command.scope, place, io);
      case "list": {
        const { listServers } = await import("./list.ts");
        return listServers(place, io);
      }
      case "login":
      case "logout": {
        const { login, logout } = await import("./login.ts");
        return await (command.action === "login" ? login : logout)(command.name, place, io);
      }
    }
  } catch (error) {
    if (!(error instanceof McpFileError)) throw error;
    io.stderr.write(`harness: ${error.message}\n`);
    return 1;
  }
}

/** Checked in Claude Code's order: the name, the managed file, the entry, the policy, then
 * whether the scope already has a server of that name. Nothing is written unless all pass. With
 * `clientSecret`, the secret of the entry's `oauth.clientId` is read first and kept in the sign-in
 * file once the entry is written. */
async function add(name: string, entry: unknown, scope: McpScope, place: McpPlace, io: CliIO, clientSecret?: true): Promise<number> {
  if (!SERVER_NAME.test(name)) throw new McpFileError(`invalid server name "${name}": names may hold only letters, digits, hyphens and underscores (at most 64)`);
  const { readMcpSettings } = await import("./settings.ts");
  const settings = await readMcpSettings(place, io.cwd, (message) => io.stderr.write(`harness: warning: ${message}\n`));
  if (existsSync(settings.managedFile)) throw new McpFileError(`no server can be added: the machine's managed MCP configuration (${settings.managedFile}) allows its own servers only`);
  const file = scopeFile(scope, place);
  const parsed = parseServerEntry(name, entry, { scope, file, keyPrefix: name }, io.env);
  if (!parsed.ok) throw new McpFileError(`invalid MCP server "${name}": ${parsed.diagnostic.message}${parsed.diagnostic.key && parsed.diagnostic.key !== name ? ` (at ${parsed.diagnostic.key})` : ""}`);
  const blocked = mcpPolicyBlocks(parsed.server, settings.policy);
  if (blocked) throw new McpFileError(`MCP server "${name}" cannot be added: the settings' MCP policy keeps it from running (${blocked})`);
  const server = parsed.server;
  if (clientSecret && (server.type === "stdio" || server.oauth?.clientId === undefined)) {
    throw new McpFileError(`--client-secret is the secret of the server's OAuth client: an http or sse server whose JSON names it ("oauth": {"clientId": …})`);
  }
  if (clientSecret && serversByScope(place, io).some((s) => s.scope === scope && Object.hasOwn(s.servers, name))) {
    throw new McpFileError(`MCP server "${name}" is already in ${describeScope(scope, place)}; to replace it, first: harness mcp remove ${name} --scope ${scope}`);
  }
  const secret = clientSecret && (await import("./secret.ts").then(({ readClientSecret }) => readClientSecret(io)));
  await updateConfig(file, (config) => {
    const servers = serversIn(config, scope, place) ?? {};
    if (Object.hasOwn(servers, name)) throw new McpFileError(`MCP server "${name}" is already in ${describeScope(scope, place)}; to replace it, first: harness mcp remove ${name} --scope ${scope}`);
    return withServers(config, scope, place, { ...servers, [name]: entry });
  });
  const what = server.type === "stdio" ? [server.command, ...server.args].map(shown).join(" ") : server.url;
  io.stdout.write(`Added ${server.type} MCP server "${name}" (${what}) to ${describeScope(scope, place)}.\n`);
  if (secret && server.type !== "stdio") {
    const { mcpOAuthFile, saveClientSecret } = await import("@harness/agent/mcp-oauth");
    const signIns = mcpOAuthFile(place.home, io.env);
    saveClientSecret(signIns, { name, url: server.url }, secret);
    io.stdout.write(`Its client secret is kept in ${signIns}, not in the config file. Sign in with: harness mcp login ${name}\n`);
  }
  if (scope === "project") {
    io.stdout.write(
      `Runs start it once it is approved, as every server of .mcp.json: name it in "enabledMcpjsonServers" (or set "enableAllProjectMcpServers": true) in ${join(place.userDir, "settings.json")}, or approve it in Claude Code, which records it in this project's entry of ${scopeFile("local", place)}; the project's own .claude/settings files cannot approve it.\n`,
    );
  }
  return 0;
}

/** The servers of each scope, those that win on equal names (local, project, user) first. A file
 * that cannot be read is said on stderr and passed over. */
export function serversByScope(place: McpPlace, io: CliIO): { scope: McpScope; file: string; servers: Record<string, unknown> }[] {
  return MCP_SCOPES.flatMap((scope) => {
    try {
      const config = readConfig(scopeFile(scope, place));
      return [{ scope, file: config.file, servers: serversIn(config, scope, place) ?? {} }];
    } catch (error) {
      if (!(error instanceof McpFileError)) throw error;
      io.stderr.write(`harness: warning: ${error.message}\n`);
      return [];
    }
  });
}

async function get(name: string, place: McpPlace, io: CliIO): Promise<number> {
  const found = serversByScope(place, io).filter((s) => Object.hasOwn(s.servers, name));
  if (found.length === 0) throw new McpFileError(`no MCP server named "${name}" in local, project or user config`);
  const { runServers, notStarted } = await import("./list.ts");
  const { config } = await runServers(place, io, () => {});
  const used = config.servers.find((server) => server.name === name)?.scope;
  const disabled = config.disabled.find((server) => server.name === name);
  const [{ scope, file, servers }] = found;
  const raw = servers[name];
  const lines = [`${name}:`, `  Scope: ${describeScope(scope, place)}`];
  const entry = isJsonObject(raw) ? raw : {};
  const type = typeof entry.type === "string" ? entry.type : "stdio";
  lines.push(`  Type: ${type}`);
  if (type === "stdio") {
    lines.push(`  Command: ${String(entry.command ?? "")}`);
    if (Array.isArray(entry.args) && entry.args.length) lines.push(`  Args: ${entry.args.map((a) => shown(String(a))).join(" ")}`);
    if (isJsonObject(entry.env) && Object.keys(entry.env).length) lines.push("  Environment:", ...Object.entries(entry.env).map(([k, v]) => `    ${k}=${String(v)}`));
  } else {
    lines.push(`  URL: ${String(entry.url ?? "")}`);
    if (isJsonObject(entry.headers) && Object.keys(entry.headers).length) lines.push("  Headers:", ...Object.entries(entry.headers).map(([k, v]) => `    ${k}: ${String(v)}`));
  }
  const parsed = parseServerEntry(name, raw, { scope, file, keyPrefix: name }, io.env);
  const oauth = parsed.ok && parsed.server.type !== "stdio" ? parsed.server.oauth : undefined;
  if (parsed.ok && parsed.server.type !== "stdio" && oauth) {
    const { mcpOAuthFile, readOAuthEntry } = await import("@harness/agent/mcp-oauth");
    const secret = readOAuthEntry(mcpOAuthFile(place.home, io.env), { name, url: parsed.server.url })?.clientSecret !== undefined;
    if (oauth.clientId !== undefined) lines.push(`  OAuth client ID: ${oauth.clientId} (client secret: ${secret ? "stored" : "none stored"})`);
    if (oauth.callbackPort !== undefined) lines.push(`  OAuth callback: http://localhost:${oauth.callbackPort}/callback`);
  }
  if (!parsed.ok) lines.push(`  Problem: ${parsed.diagnostic.message} (it is not started)`);
  else if (scope === "project" && disabled) lines.push(`  Not started: ${notStarted(disabled.reason, place)}`);
  if (found.length > 1) lines.push(`  Also in: ${found.slice(1).map((s) => s.scope).join(", ")} (${used ? `the ${used} one is used` : "none is used"})`);
  lines.push("", `To remove it: harness mcp remove ${name} --scope ${scope}`);
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

async function remove(name: string, scope: McpScope | undefined, place: McpPlace, io: CliIO): Promise<number> {
  if (!scope) {
    const found = serversByScope(place, io).filter((s) => Object.hasOwn(s.servers, name));
    if (found.length === 0) throw new McpFileError(`no MCP server named "${name}" in local, project or user config`);
    if (found.length > 1) throw new McpFileError(`MCP server "${name}" is in more than one scope (${found.map((s) => s.scope).join(", ")}): say which with --scope`);
    scope = found[0].scope;
  }
  const from = scope;
  await updateConfig(scopeFile(from, place), (config) => {
    const servers = serversIn(config, from, place);
    if (!servers || !Object.hasOwn(servers, name)) throw new McpFileError(`no MCP server named "${name}" in ${describeScope(from, place)}`);
    const { [name]: _removed, ...rest } = servers;
    return withServers(config, from, place, rest);
  });
  io.stdout.write(`Removed MCP server "${name}" from ${describeScope(scope, place)}.\n`);
  // Its sign-in and client secret go with the last of its entries.
  if (!serversByScope(place, io).some((s) => Object.hasOwn(s.servers, name))) {
    const { forgetOAuthServer, mcpOAuthFile } = await import("@harness/agent/mcp-oauth");
    try {
      forgetOAuthServer(mcpOAuthFile(place.home, io.env), name);
    } catch (error) {
      io.stderr.write(`harness: warning: its sign-in could not be forgotten: ${(error as Error).message}\n`);
    }
  }
  return 0;
}

/** An argument as a shell would need it to be typed. */
export function shown(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
