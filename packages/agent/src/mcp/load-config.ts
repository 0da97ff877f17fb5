// Collects the MCP servers of a project from the places Claude Code reads them.
import { readConfigJson } from "../config/files.ts";
import { join, resolve } from "node:path";
import { z } from "zod";
import { pluginVariables, type Plugin } from "../plugins/types.ts";
import { type Env, type McpDiagnostic, type McpServerConfig, type McpServerScope, parseServerEntry } from "./config.ts";
import { isJsonObject } from "../config/json-text.ts";
import { managedOnlyReason } from "./start-rules.ts";
import { userConfigFile } from "../config/user-config-dir.ts";
import { granted, type McpGrant } from "./granted.ts";

export { mcpEntryFingerprint, type McpGrant } from "./granted.ts";

/** The MCP keys of the merged settings object (any other keys are ignored). */
export type McpSettings = {
  mcpServers?: unknown;
  enabledMcpjsonServers?: unknown;
  disabledMcpjsonServers?: unknown;
  enableAllProjectMcpServers?: unknown;
};

export type LoadMcpConfigOptions = {
  projectRoot: string;
  /** The user's home directory: `<home>/.claude.json` holds user- and local-scope servers. */
  home: string;
  /** That file where it is elsewhere (a Claude Code given its own CLAUDE_CONFIG_DIR); default
   * userConfigFile(home). */
  userFile?: string;
  settings?: McpSettings;
  /** Named in diagnostics about `settings`; default "settings". */
  settingsFile?: string;
  /** Source of `${VAR}` values; default process.env. */
  env?: Env;
  /** A `.mcp.json` comes with the repository, and its servers are commands that run on this
   * machine: Claude Code asks before starting one. A harness cannot ask, so a `.mcp.json` server
   * starts only once approved: listed in `enabledMcpjsonServers` (or all of them, with
   * `enableAllProjectMcpServers: true`) in `approvals`, or in the project's entry of
   * `<home>/.claude.json`, where Claude Code records the answers its users give. `approvals` holds
   * those keys from the settings the repository does not bring (the user's and managed ones);
   * the same keys in `settings` (the project's files included) approve nothing. False: every
   * `.mcp.json` server is used (for callers that trust the project). Default true. */
  requireProjectApproval?: boolean;
  approvals?: Pick<McpSettings, "enabledMcpjsonServers" | "enableAllProjectMcpServers">;
  /** Approvals the run's host gives, each of one `.mcp.json` entry exactly as it was when approved
   * (granted.ts); `disabledMcpjsonServers` still wins over them. */
  granted?: readonly McpGrant[];
  /** The machine's managed-mcp.json (beside its managed settings). When it exists, its servers are
   * the only ones, as in Claude Code: no other file may add one. */
  managedFile?: string;
  /** Enabled plugins: their servers start without approval (enabling the plugin approved them),
   * but not beside a managed-mcp.json, as in Claude Code. */
  plugins?: readonly Plugin[];
  /** The run's own servers (Claude Code's --mcp-config), each group an `mcpServers` object with
   * the file it came from: the user's own, started unasked; a later group wins on equal names. */
  given?: readonly { file: string; servers: unknown }[];
  /** Only `given`'s servers (Claude Code's --strict-mcp-config); managed-mcp.json still decides
   * alone when it exists. */
  strict?: boolean;
  /** The servers the file of the agent the main thread runs as defines (--agent): started unasked,
   * as its hooks run, below every configured server of the same name; not under `strict`. */
  agent?: { file: string; servers: Record<string, unknown> };
};

export type McpConfig = {
  /** The servers to start, one per name. */
  servers: McpServerConfig[];
  /** `.mcp.json` servers that are configured but not used, and why. */
  disabled: { name: string; reason: string }[];
  diagnostics: McpDiagnostic[];
};

const nameList = z.array(z.string()).optional();

/** Reads `<projectRoot>/.mcp.json`, `<home>/.claude.json` (top-level `mcpServers` = user scope,
 * `projects[<projectRoot>].mcpServers` = local scope), `settings.mcpServers` and the run's own
 * (`given`). When a name is configured in several places the first of the run's own, settings,
 * local, project, user wins, whole. Never
 * throws: unreadable files and invalid entries become diagnostics and the rest loads. */
export async function loadMcpConfig(options: LoadMcpConfigOptions): Promise<McpConfig> {
  const env = options.env ?? process.env;
  const diagnostics: McpDiagnostic[] = [];
  const settingsFile = options.settingsFile ?? "settings";
  const settings = options.settings ?? {};
  const projectRoot = resolve(options.projectRoot);

  const given = options.given ?? [];
  if (options.managedFile) {
    const managed = await readConfigJson(options.managedFile);
    if (managed.kind !== "missing") {
      for (const group of given) {
        for (const name of isJsonObject(group.servers) ? Object.keys(group.servers) : []) {
          diagnostics.push({ file: group.file, key: `mcpServers.${name}`, message: `MCP server "${name}" is not started: ${managedOnlyReason(options.managedFile)}` });
        }
      }
      for (const plugin of options.strict ? [] : (options.plugins ?? [])) {
        for (const entry of plugin.mcpServers) {
          diagnostics.push({ file: entry.file, key: entry.key, message: `MCP server "${entry.name}" is not started: ${managedOnlyReason(options.managedFile)}` });
        }
      }
      return managedServers(options.managedFile, managed, env, diagnostics);
    }
  }

  const fromFlag = [...given].reverse().map((group) => ({ scope: "flag" as const, file: group.file, keyPrefix: "mcpServers", servers: group.servers }));
  if (options.strict) return collect(fromFlag, [], env, projectRoot, diagnostics);

  const mcpJsonPath = join(projectRoot, ".mcp.json");
  const mcpJson = await readJsonObject(mcpJsonPath, diagnostics);
  const claudeJsonPath = options.userFile ?? userConfigFile(options.home);
  const claudeJson = await readJsonObject(claudeJsonPath, diagnostics);
  const projects = claudeJson?.projects;
  const localEntry = isJsonObject(projects) ? (projects[projectRoot] ?? projects[options.projectRoot]) : undefined;

  const sources: McpSource[] = [
    ...fromFlag,
    { scope: "settings", file: settingsFile, keyPrefix: "mcpServers", servers: settings.mcpServers },
    { scope: "local", file: claudeJsonPath, keyPrefix: `projects.${projectRoot}.mcpServers`, servers: isJsonObject(localEntry) ? localEntry.mcpServers : undefined },
    { scope: "project", file: mcpJsonPath, keyPrefix: "mcpServers", servers: mcpJson?.mcpServers },
    { scope: "user", file: claudeJsonPath, keyPrefix: "mcpServers", servers: claudeJson?.mcpServers },
    ...(options.agent ? [{ scope: "agent" as const, file: options.agent.file, keyPrefix: "mcpServers", servers: options.agent.servers }] : []),
  ];
  if (mcpJson && mcpJson.mcpServers === undefined) {
    diagnostics.push({ file: mcpJsonPath, message: 'no "mcpServers" object: servers must be listed under "mcpServers"' });
  }

  const approval = readApproval(settings, settingsFile, diagnostics);
  const trusted = readApproval(options.approvals ?? {}, "settings", diagnostics);
  const recorded = isJsonObject(localEntry) ? readApproval(localEntry as McpSettings, claudeJsonPath, diagnostics) : undefined;
  approval.enabled = [...trusted.enabled, ...(recorded?.enabled ?? [])];
  approval.enableAll = trusted.enableAll || recorded?.enableAll === true;
  approval.disabled.push(...(recorded?.disabled ?? []));
  const requireApproval = options.requireProjectApproval !== false;
  const grants = options.granted ?? [];
  return collect(sources, options.plugins ?? [], env, projectRoot, diagnostics, (name, raw) => projectServerDisabled(name, approval, requireApproval && !granted(grants, name, raw)));
}

type McpSource = { scope: McpServerScope; file: string; keyPrefix: string; servers: unknown };

/** The servers of `sources`, the first of a name winning whole, then the plugins' (whose names are
 * their own). `projectDisabled` says why a `.mcp.json` server is not used, if it is not. */
function collect(
  sources: readonly McpSource[],
  plugins: readonly Plugin[],
  env: Env,
  projectRoot: string,
  diagnostics: McpDiagnostic[],
  projectDisabled: (name: string, raw: unknown) => string | undefined = () => undefined,
): McpConfig {
  const servers = new Map<string, McpServerConfig>();
  const disabled: McpConfig["disabled"] = [];
  for (const source of sources) {
    if (source.servers === undefined) continue;
    if (!isJsonObject(source.servers)) {
      diagnostics.push({ file: source.file, key: source.keyPrefix, message: "must be an object mapping server names to server configs" });
      continue;
    }
    for (const [name, raw] of Object.entries(source.servers)) {
      if (servers.has(name)) {
        // An agent's file is the one place a clash is not the user's own choice of precedence.
        if (source.scope === "agent") diagnostics.push({ file: source.file, key: `${source.keyPrefix}.${name}`, message: `MCP server "${name}" is not started: a configured server has that name, and is used instead` });
        continue;
      }
      const parsed = parseServerEntry(name, raw, { ...source, keyPrefix: `${source.keyPrefix}.${name}` }, env);
      if (!parsed.ok) {
        diagnostics.push(parsed.diagnostic);
        continue;
      }
      diagnostics.push(...parsed.warnings);
      if (source.scope === "project") {
        const reason = projectDisabled(name, raw);
        if (reason) {
          disabled.push({ name, reason });
          continue;
        }
      }
      servers.set(name, parsed.server);
    }
  }
  for (const plugin of plugins) for (const server of pluginServers(plugin, projectRoot, env, diagnostics)) if (!servers.has(server.name)) servers.set(server.name, server);
  return { servers: [...servers.values()], disabled, diagnostics };
}

/** A plugin's servers, ${CLAUDE_PLUGIN_ROOT}, ${CLAUDE_PLUGIN_DATA} and ${CLAUDE_PROJECT_DIR}
 * expanded in them, and the first two set in a stdio server's environment. */
function pluginServers(plugin: Plugin, projectRoot: string, env: Env, diagnostics: McpDiagnostic[]): McpServerConfig[] {
  const own = pluginVariables(plugin);
  const expandFrom = { ...env, CLAUDE_PROJECT_DIR: projectRoot, ...own };
  return plugin.mcpServers.flatMap((entry) => {
    const parsed = parseServerEntry(entry.name, entry.raw, { scope: "plugin", file: entry.file, keyPrefix: entry.key }, expandFrom);
    if (!parsed.ok) {
      diagnostics.push(parsed.diagnostic);
      return [];
    }
    diagnostics.push(...parsed.warnings);
    const server = parsed.server;
    return [server.type === "stdio" ? { ...server, env: { ...own, ...server.env } } : server];
  });
}

/** The servers of a managed-mcp.json, which stands in for every other place servers are read from.
 * A file that is there but unusable (not JSON, its servers not an object) still stands in: it then
 * starts none, since what the machine's owner meant to allow cannot be told. */
function managedServers(file: string, read: Awaited<ReturnType<typeof readConfigJson>>, env: Env, diagnostics: McpDiagnostic[]): McpConfig {
  const servers: McpServerConfig[] = [];
  const value = read.kind === "ok" ? read.value : undefined;
  const entries = isJsonObject(value) ? value.mcpServers : undefined;
  if (!isJsonObject(entries)) {
    const why = read.kind === "error" ? read.message : isJsonObject(value) ? '"mcpServers" must be an object mapping server names to server configs' : "must contain a JSON object";
    diagnostics.push({ file, message: `${why}; as the machine's managed MCP configuration, it still keeps every other MCP server from starting` });
    return { servers, disabled: [], diagnostics };
  }
  for (const [name, raw] of Object.entries(entries)) {
    const parsed = parseServerEntry(name, raw, { scope: "managed", file, keyPrefix: `mcpServers.${name}` }, env);
    if (!parsed.ok) {
      diagnostics.push(parsed.diagnostic);
      continue;
    }
    diagnostics.push(...parsed.warnings);
    servers.push(parsed.server);
  }
  return { servers, disabled: [], diagnostics };
}

type Approval = { enabled: string[]; disabled: string[]; enableAll: boolean };

function readApproval(settings: McpSettings, file: string, diagnostics: McpDiagnostic[]): Approval {
  const list = (key: "enabledMcpjsonServers" | "disabledMcpjsonServers"): string[] => {
    const parsed = nameList.safeParse(settings[key]);
    if (parsed.success) return parsed.data ?? [];
    diagnostics.push({ file, key, message: "must be an array of server names" });
    return [];
  };
  const enabled = list("enabledMcpjsonServers");
  const disabled = list("disabledMcpjsonServers");
  const enableAll = settings.enableAllProjectMcpServers;
  if (enableAll !== undefined && typeof enableAll !== "boolean") {
    diagnostics.push({ file, key: "enableAllProjectMcpServers", message: "must be true or false" });
  }
  return { enabled, disabled, enableAll: enableAll === true };
}

function projectServerDisabled(name: string, approval: Approval, requireApproval: boolean): string | undefined {
  if (approval.disabled.includes(name)) return "listed in disabledMcpjsonServers";
  if (!requireApproval || approval.enableAll || approval.enabled.includes(name)) return undefined;
  return `not approved: a .mcp.json server starts once its name is in "enabledMcpjsonServers" (or "enableAllProjectMcpServers" is true) in ~/.claude/settings.json, or in this project's entry of ~/.claude.json, where Claude Code records approvals; the project's own settings files cannot approve it`;
}

/** The parsed object, or undefined when the file does not exist or is not a JSON object (the
 * latter with a diagnostic). An empty file holds nothing. */
async function readJsonObject(file: string, diagnostics: McpDiagnostic[]): Promise<Record<string, unknown> | undefined> {
  const read = await readConfigJson(file);
  if (read.kind === "missing" || (read.kind === "ok" && read.empty)) return undefined;
  if (read.kind === "error") {
    diagnostics.push({ file, message: read.message });
    return undefined;
  }
  if (!isJsonObject(read.value)) {
    diagnostics.push({ file, message: "must contain a JSON object" });
    return undefined;
  }
  return read.value;
}
