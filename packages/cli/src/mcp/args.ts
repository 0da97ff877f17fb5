// Command-line parsing for `harness mcp …`, Claude Code's `claude mcp` subcommands. Pure: the
// arguments after "mcp" in, a command or a one-line usage error out.
import { parseInteger } from "../parse-integer.ts";
import { type OptionSpec, scan } from "../scan-options.ts";

/** Where a server is kept, as Claude Code names its scopes: local, this project's entry of
 * ~/.claude.json; project, the project's .mcp.json; user, ~/.claude.json's own. */
export const MCP_SCOPES = ["local", "project", "user"] as const;
export type McpScope = (typeof MCP_SCOPES)[number];
export const MCP_TRANSPORTS = ["stdio", "http", "sse"] as const;

export type McpCommand =
  /** `entry` is what goes into `mcpServers[name]`, not yet checked. `clientSecret`: the secret of
   * the entry's `oauth.clientId` is asked for (or read from MCP_CLIENT_SECRET), and kept in the
   * sign-in file rather than in `entry`. */
  | { action: "add"; scope: McpScope; name: string; entry: Record<string, unknown>; clientSecret?: true }
  /** `json` as given, parsed and checked when the command runs. */
  | { action: "add-json"; scope: McpScope; name: string; json: string; clientSecret?: true }
  | { action: "list" }
  | { action: "get"; name: string }
  /** Without `scope`: the one scope the name is in. */
  | { action: "remove"; scope?: McpScope; name: string }
  /** Signs in to a remote server with OAuth, or forgets its sign-in. */
  | { action: "login" | "logout"; name: string };

export type McpParsed = { kind: "mcp"; mcp: McpCommand } | { kind: "help"; topic: "mcp" } | { kind: "usage-error"; message: string; topic: "mcp" };

type Flag = { key: "scope" | "transport" | "env" | "header" | "clientId" | "clientSecret" | "callbackPort" | "help"; value: boolean };
const FLAGS: Record<string, Flag> = {
  "-s": { key: "scope", value: true },
  "--scope": { key: "scope", value: true },
  "-t": { key: "transport", value: true },
  "--transport": { key: "transport", value: true },
  "-e": { key: "env", value: true },
  "--env": { key: "env", value: true },
  "-H": { key: "header", value: true },
  "--header": { key: "header", value: true },
  "--client-id": { key: "clientId", value: true },
  "--client-secret": { key: "clientSecret", value: false },
  "--callback-port": { key: "callbackPort", value: true },
  "-h": { key: "help", value: false },
  "--help": { key: "help", value: false },
};
/** The options each subcommand takes. */
const TAKES: Record<McpCommand["action"], ReadonlySet<Flag["key"]>> = {
  add: new Set(["scope", "transport", "env", "header", "clientId", "clientSecret", "callbackPort", "help"]),
  "add-json": new Set(["scope", "clientSecret", "help"]),
  list: new Set(["help"]),
  get: new Set(["help"]),
  remove: new Set(["scope", "help"]),
  login: new Set(["help"]),
  logout: new Set(["help"]),
};

type Scanned = { values: Partial<Record<Flag["key"], string[]>>; positionals: string[] };

/** Options anywhere before `--`, by the run's own scanner; everything after it is positional (a
 * server's own command line). Every option may repeat: `-e` and `-H` do, and `--scope` given twice
 * is named by the caller. */
function scanMcp(action: McpCommand["action"], args: readonly string[]): Scanned | string {
  const spec: OptionSpec = {};
  for (const [flag, { key, value }] of Object.entries(FLAGS)) if (TAKES[action].has(key)) spec[flag] = { key, value, ...(value && { repeat: true }) };
  const scanned = scan(args, spec, `mcp ${action}`, {
    unknownHint: (_flag, arg, [name, ...command]) => (action === "add" && name !== undefined ? `; a server's own options go after --: harness mcp add ${name} -- ${[...command, arg].join(" ")} …` : ""),
    rulesAsOneArgument: false,
  });
  if (!scanned.ok) return scanned.message;
  const values: Scanned["values"] = {};
  for (const [key, value] of Object.entries(scanned.options)) values[key as Flag["key"]] = value === true ? [""] : (value as string[]);
  return { values, positionals: scanned.positionals };
}

function one<T extends string>(flag: string, given: string[] | undefined, allowed: readonly T[], fallback: T): T | string {
  if (!given) return fallback;
  if (given.length > 1) return `${flag} may be given once`;
  return allowed.find((a) => a === given[0]) ?? `${flag} must be one of ${allowed.join(", ")}, not "${given[0]}"`;
}

export function parseMcp(args: readonly string[]): McpParsed {
  const [sub, ...rest] = args;
  const usage = (message: string): McpParsed => ({ kind: "usage-error", message, topic: "mcp" });
  if (sub === undefined || sub === "help" || sub === "-h" || sub === "--help") return { kind: "help", topic: "mcp" };
  if (!(sub in TAKES)) return usage(`unknown mcp command "${sub}"`);
  const action = sub as McpCommand["action"];
  const scanned = scanMcp(action, rest);
  if (typeof scanned === "string") return usage(scanned);
  const { values, positionals } = scanned;
  if (values.help) return { kind: "help", topic: "mcp" };
  const scope = one("--scope", values.scope, MCP_SCOPES, "local");
  if (!MCP_SCOPES.includes(scope as McpScope)) return usage(scope);
  const exactly = (n: number, what: string): string | undefined =>
    positionals.length < n ? `"harness mcp ${action}" needs ${what}` : positionals.length > n ? `unexpected argument "${positionals[n]}" for "harness mcp ${action}"` : undefined;

  switch (action) {
    case "list": {
      const problem = exactly(0, "no arguments");
      return problem ? usage(problem) : { kind: "mcp", mcp: { action } };
    }
    case "get":
    case "login":
    case "logout": {
      const problem = exactly(1, "a server name");
      return problem ? usage(problem) : { kind: "mcp", mcp: { action, name: positionals[0] } };
    }
    case "remove": {
      const problem = exactly(1, "a server name");
      if (problem) return usage(problem);
      return { kind: "mcp", mcp: { action, name: positionals[0], ...(values.scope && { scope: scope as McpScope }) } };
    }
    case "add-json": {
      const problem = exactly(2, "a name and the server's JSON: harness mcp add-json NAME '{\"command\": …}'");
      if (problem) return usage(problem);
      return { kind: "mcp", mcp: { action, scope: scope as McpScope, name: positionals[0], json: positionals[1], ...(values.clientSecret && { clientSecret: true }) } };
    }
    case "add": {
      const built = addEntry(values, positionals);
      return typeof built === "string" ? usage(built) : { kind: "mcp", mcp: { action, scope: scope as McpScope, ...built, ...(values.clientSecret && { clientSecret: true }) } };
    }
  }
}

/** The entry `harness mcp add` writes: Claude Code's shape, `type` always said and a stdio
 * server's `args` always there. */
function addEntry(values: Scanned["values"], positionals: string[]): { name: string; entry: Record<string, unknown> } | string {
  const transport = one("--transport", values.transport, MCP_TRANSPORTS, "stdio");
  if (!MCP_TRANSPORTS.includes(transport as (typeof MCP_TRANSPORTS)[number])) return transport;
  const [name, target, ...args] = positionals;
  if (target === undefined) {
    return transport === "stdio" ? `"harness mcp add" needs a name and a command: harness mcp add NAME -- COMMAND [ARGS…]` : `"harness mcp add" needs a name and a URL`;
  }
  if (transport === "stdio") {
    if (values.header) return "-H/--header sets an http or sse server's headers; a stdio server takes -e KEY=value";
    if (values.clientId || values.clientSecret || values.callbackPort) return "--client-id, --client-secret and --callback-port set an http or sse server's OAuth sign-in; a stdio server has none";
    const env: Record<string, string> = {};
    for (const pair of values.env ?? []) {
      const eq = pair.indexOf("=");
      if (eq <= 0) return `-e takes KEY=value, not "${pair}"`;
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    return { name, entry: { type: "stdio", command: target, args, env } };
  }
  if (args.length) return `unexpected argument "${args[0]}" for "harness mcp add": an ${transport} server takes a name and a URL`;
  if (values.env) return `-e/--env sets a stdio server's environment; an ${transport} server takes -H "Name: value"`;
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(":");
    if (colon <= 0 || !header.slice(0, colon).trim()) return `-H takes "Name: value", not "${header}"`;
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  const oauth = oauthEntry(values);
  if (typeof oauth === "string") return oauth;
  return { name, entry: { type: transport, url: target, ...(values.header && { headers }), ...(oauth && { oauth }) } };
}

/** The `oauth` object of --client-id and --callback-port, as Claude Code writes it. */
function oauthEntry(values: Scanned["values"]): { clientId?: string; callbackPort?: number } | undefined | string {
  for (const flag of ["clientId", "callbackPort"] as const) if ((values[flag]?.length ?? 0) > 1) return `--${flag === "clientId" ? "client-id" : "callback-port"} may be given once`;
  const [clientId] = values.clientId ?? [];
  const [port] = values.callbackPort ?? [];
  if (clientId === "") return "--client-id is empty: it takes the client ID the server's authorization server gave";
  if (values.clientSecret && clientId === undefined) return "--client-secret goes with --client-id, the client whose secret it is";
  const callbackPort = port === undefined ? undefined : parseInteger("--callback-port", port, 1, 65535);
  if (typeof callbackPort === "string") return callbackPort;
  if (clientId === undefined && callbackPort === undefined) return undefined;
  return { ...(clientId !== undefined && { clientId }), ...(callbackPort !== undefined && { callbackPort }) };
}
