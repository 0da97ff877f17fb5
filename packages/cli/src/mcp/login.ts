// `harness mcp login|logout NAME`: the OAuth sign-in of a remote MCP server, as Claude Code's /mcp
// "Authenticate" makes it. The tokens go to a file of our own (mcpOAuthFile), which runs read.
import type { McpRemoteServerConfig } from "@harness/agent";
import { environmentOf } from "@harness/agent/harness-env";
import { mcpLogin, mcpOAuthFile, removeOAuthEntries } from "@harness/agent/mcp-oauth";
import type { CliIO } from "../cli.ts";
import { McpFileError, type McpPlace } from "./files.ts";
import { runServers } from "./list.ts";

/** The server a run here would use under `name`, which must be a remote one, and the settings' env
 * a run's requests to it would take (McpSettingsRead.envOverrides). */
async function remoteServer(name: string, place: McpPlace, io: CliIO): Promise<{ server: McpRemoteServerConfig; envOverrides: Record<string, string> }> {
  const { settings, config } = await runServers(place, io, (message) => io.stderr.write(`harness: warning: ${message}\n`));
  const server = config.servers.find((s) => s.name === name);
  if (!server) throw new McpFileError(`no MCP server named "${name}" is configured here (see harness mcp list)`);
  if (server.type === "stdio") throw new McpFileError(`"${name}" is a stdio server: only http and sse servers sign in`);
  return { server, envOverrides: settings.envOverrides };
}

export async function login(name: string, place: McpPlace, io: CliIO): Promise<number> {
  const { server, envOverrides } = await remoteServer(name, place, io);
  try {
    const result = await mcpLogin(server, {
      file: mcpOAuthFile(place.home, io.env),
      env: io.env,
      networkEnv: environmentOf(io.env, envOverrides),
      onAuthorizationUrl: (url) => io.stdout.write(`To sign in to ${name}, open this URL in a browser (one is opened if it can be):\n  ${url}\nWaiting for the browser…\n`),
    });
    const tools = `${result.toolCount} tool${result.toolCount === 1 ? "" : "s"}`;
    io.stdout.write(result.kind === "signed-in" ? `Signed in to ${name}: ${tools}.\n` : `${name} let us in without a sign-in: ${tools}.\n`);
    return 0;
  } catch (error) {
    throw new McpFileError(`signing in to ${name} failed: ${(error as Error).message}`);
  }
}

export async function logout(name: string, place: McpPlace, io: CliIO): Promise<number> {
  const removed = removeOAuthEntries(mcpOAuthFile(place.home, io.env), name);
  io.stdout.write(removed > 0 ? `Signed out of ${name}: its stored tokens are removed.\n` : `No sign-in of ${name} is stored.\n`);
  return 0;
}
