// The MCP server entries of Claude Code's config files (`.mcp.json`, `~/.claude.json`, settings),
// validated one by one: a bad entry becomes a diagnostic and the others still load.
import { z } from "zod";
import { ENV_NAME_RULE, isEnvName } from "../env/names.ts";
import { isJsonObject } from "../config/json-text.ts";
import { expandEnv } from "./expand-env.ts";

/** Where a server is configured; "managed" is the machine's managed-mcp.json, "plugin" an enabled
 * plugin, "flag" the run's own (Claude Code's --mcp-config), "agent" the file of the agent the
 * main thread runs as. Precedence on equal names: flag > settings > local > project > user > agent
 * (a plugin's servers have names of their own, `plugin:<plugin>:<server>`). */
export type McpServerScope = "managed" | "flag" | "settings" | "local" | "project" | "user" | "agent" | "plugin";

type ServerCommon = {
  /** The key in `mcpServers`; tool names use it sanitised (`mcp__<name>__<tool>`). */
  name: string;
  scope: McpServerScope;
  /** The file it came from, for messages. */
  file: string;
};
export type McpStdioServerConfig = ServerCommon & { type: "stdio"; command: string; args: string[]; env: Record<string, string> };
/** How a remote server's OAuth sign-in goes when its authorization server wants more than a
 * dynamically registered client on a random loopback port (Claude Code's `oauth` keys). */
export type McpOAuthClientConfig = {
  /** A client registered with the authorization server beforehand: no dynamic registration. Its
   * secret, if it has one, is in the sign-in file (oauth-store.ts), never in a config file. */
  clientId?: string;
  /** The loopback port of the redirect URI, http://localhost:<port>/callback, as registered. */
  callbackPort?: number;
};
export type McpRemoteServerConfig = ServerCommon & { type: "http" | "sse"; url: string; headers: Record<string, string>; oauth?: McpOAuthClientConfig };
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;
/** A server that lives in the program driving the run (the Agent SDK's createSdkMcpServer): its
 * messages go through the run's McpRelay. No file configures one. */
export type McpSdkServerConfig = ServerCommon & { type: "sdk" };
/** Any server a run may connect to. */
export type McpRunServerConfig = McpServerConfig | McpSdkServerConfig;

export type McpDiagnostic = { file: string; key?: string; message: string };

export type Env = Readonly<Record<string, string | undefined>>;

/** A message for a required string field: says whether it is missing or of the wrong type. */
const requiredString = (field: string, what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `missing "${field}" (${what})` : `"${field}" must be a string`) }).min(1, { error: `"${field}" is empty` });
const stringMap = (field: string) =>
  z.record(z.string(), z.string({ error: `"${field}" values must be strings` }), { error: `"${field}" must be an object of strings` });
const stdioEntry = z.object({
  type: z.literal("stdio").optional(),
  command: requiredString("command", "the program to start"),
  args: z.array(z.string({ error: '"args" must hold only strings' }), { error: '"args" must be an array of strings' }).optional(),
  env: stringMap("env").optional(),
});
// Other keys of `oauth` (Claude Code's scopes, authServerMetadataUrl) are not read.
const oauthEntry = z.object(
  {
    clientId: z.string({ error: '"oauth.clientId" must be a string' }).min(1, { error: '"oauth.clientId" is empty' }).optional(),
    callbackPort: z
      .number({ error: '"oauth.callbackPort" must be a port number from 1 to 65535' })
      .int({ error: '"oauth.callbackPort" must be a port number from 1 to 65535' })
      .min(1, { error: '"oauth.callbackPort" must be a port number from 1 to 65535' })
      .max(65535, { error: '"oauth.callbackPort" must be a port number from 1 to 65535' })
      .optional(),
  },
  { error: '"oauth" must be an object' },
);
const remoteEntry = z.object({
  type: z.enum(["http", "sse"]),
  url: requiredString("url", "the server's endpoint"),
  headers: stringMap("headers").optional(),
  oauth: oauthEntry.optional(),
});

export type ParsedEntry =
  | { ok: true; server: McpServerConfig; warnings: McpDiagnostic[] }
  | { ok: false; diagnostic: McpDiagnostic };

/** Validates one `mcpServers` entry and expands `${VAR}` / `${VAR:-default}` in command, args,
 * env, url and headers, as Claude Code does, and in oauth.clientId (a port is a number, nothing to
 * expand). `keyPrefix` locates the entry in its file (e.g. `mcpServers.github`). */
export function parseServerEntry(name: string, raw: unknown, where: { scope: McpServerScope; file: string; keyPrefix: string }, env: Env): ParsedEntry {
  const fail = (message: string, key = where.keyPrefix): ParsedEntry => ({ ok: false, diagnostic: { file: where.file, key, message } });
  if (!name.trim()) return fail("server name is empty");
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return fail("must be an object");
  const type = (raw as { type?: unknown }).type;
  if (type !== undefined && type !== "stdio" && type !== "http" && type !== "sse") {
    return fail(`unsupported type ${JSON.stringify(type)}: expected "stdio", "http" or "sse"`, `${where.keyPrefix}.type`);
  }
  if (type === undefined && !("command" in raw) && "url" in raw) {
    return fail('missing "command"; a server with a "url" needs "type": "http" or "sse"');
  }

  const warnings: McpDiagnostic[] = [];
  const expand = (text: string, key: string): string => {
    const { value, missing } = expandEnv(text, env);
    for (const variable of missing) {
      warnings.push({ file: where.file, key: `${where.keyPrefix}.${key}`, message: `environment variable ${variable} is not set and has no default; \${${variable}} is used as literal text` });
    }
    return value;
  };
  const expandMap = (map: Record<string, string> | undefined, key: string): Record<string, string> =>
    Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, expand(v, `${key}.${k}`)]));
  const common = { name, scope: where.scope, file: where.file };

  if (type === "http" || type === "sse") {
    const parsed = remoteEntry.safeParse(raw);
    if (!parsed.success) return fail(...describe(parsed.error, where.keyPrefix));
    const url = expand(parsed.data.url, "url");
    if (!isHttpUrl(url)) return fail(`"url" must be an http or https URL, got ${JSON.stringify(url)}`, `${where.keyPrefix}.url`);
    const { clientId: rawClientId, callbackPort } = parsed.data.oauth ?? {};
    const clientId = rawClientId === undefined ? undefined : expand(rawClientId, "oauth.clientId");
    if (clientId === "") return fail(`"oauth.clientId" is empty once ${rawClientId} is expanded`, `${where.keyPrefix}.oauth.clientId`);
    const oauth = { ...(clientId !== undefined && { clientId }), ...(callbackPort !== undefined && { callbackPort }) };
    if (isJsonObject((raw as { oauth?: unknown }).oauth) && "clientSecret" in ((raw as { oauth: object }).oauth)) {
      warnings.push({ file: where.file, key: `${where.keyPrefix}.oauth.clientSecret`, message: 'a client secret is not read from config files: give it with "harness mcp add --client-secret", which keeps it in the sign-in file' });
    }
    return { ok: true, warnings, server: { ...common, type, url, headers: expandMap(parsed.data.headers, "headers"), ...(Object.keys(oauth).length > 0 && { oauth }) } };
  }
  const parsed = stdioEntry.safeParse(raw);
  if (!parsed.success) return fail(...describe(parsed.error, where.keyPrefix));
  const server: McpStdioServerConfig = {
    ...common,
    type: "stdio",
    command: expand(parsed.data.command, "command"),
    args: (parsed.data.args ?? []).map((arg, i) => expand(arg, `args[${i}]`)),
    env: expandMap(parsed.data.env, "env"),
  };
  // What spawn would refuse: said here, with the key, rather than as the server failing to start.
  const unspawnable: [string, string][] = [
    ["command", server.command],
    ...server.args.map((arg, i): [string, string] => [`args[${i}]`, arg]),
    ...Object.entries(server.env).flatMap(([k, v]): [string, string][] => [[`env`, k], [`env.${k}`, v]]),
  ];
  for (const [key, text] of unspawnable) {
    if (text.includes("\0")) return fail(`"${key}" holds a NUL character, which no program can be given`, `${where.keyPrefix}.${key}`);
  }
  for (const name of Object.keys(server.env)) {
    if (!isEnvName(name)) return fail(`environment variable name ${JSON.stringify(name)} ${ENV_NAME_RULE}`, `${where.keyPrefix}.env`);
  }
  return { ok: true, warnings, server };
}

function describe(error: z.ZodError, keyPrefix: string): [string, string] {
  const issue = error.issues[0];
  const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
  return [issue.message, `${keyPrefix}${path}`];
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
