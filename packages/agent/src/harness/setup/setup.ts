// Everything a run reads from the user's and the project's configuration, loaded once per run and
// concurrently: settings, hooks, permissions, memory files, git state, skills, commands, agent
// definitions, MCP servers and the plugins that add to them. Problems in those files become
// notices; they never stop a run, but for managed settings that cannot be read (the machine's
// policy does not silently stop applying).
import { mcpOAuthFile } from "../../mcp/oauth-store.ts";
import { autoMemoryInstructions } from "../../context/auto-memory-load.ts";
import { runAutoMemory, type RunAutoMemory } from "./run-auto-memory.ts";
import os from "node:os";
import path from "node:path";
import { commandSkills } from "../../commands/as-skills.ts";
import { discoverCommands } from "../../commands/discover.ts";
import type { SlashCommand } from "../../commands/types.ts";
import { gitSnapshot, type GitSnapshot } from "../../context/git-snapshot.ts";
import { loadMemory } from "../../context/load-memory.ts";
import { loadOutputStyle } from "../../context/output-styles.ts";
import type { RuleFile } from "../../context/rules.ts";
import type { MemoryFile } from "../../context/types.ts";
import { httpHookPolicyOf } from "../../hooks/http-policy.ts";
import { httpHookSecrets } from "../../hooks/hook-secrets.ts";
import { frontmatterHooks, mergeHooksConfigs } from "../../hooks/parse-config.ts";
import type { HooksConfig } from "../../hooks/types.ts";
import { applyPermissionUpdates, type UpdateWhere } from "../../permissions/updates.ts";
import type { McpServerStatus } from "../../mcp/manager.ts";
import type { McpConnection } from "../../mcp/connection.ts";
import { mcpPolicyOf } from "../../mcp/policy.ts";
import { mcpStartRules } from "../../mcp/start-rules.ts";
import type { McpPromptCommand } from "../../mcp/prompts.ts";
import { BYPASS_DISABLED, permissionContext } from "../../settings/context.ts";
import { DEFAULT_MANAGED_SETTINGS_PATH } from "../../settings/managed-path.ts";
import { comesWithRepository, isFileScope, type Settings, type SettingsSource } from "../../settings/types.ts";
import type { Plugin, PluginDiscovery } from "../../plugins/types.ts";
import { runLspServers, type RunLsp } from "./run-lsp.ts";
import { discoverSkills } from "../../skills/discover.ts";
import type { Skill } from "../../skills/types.ts";
import { loadAgentDefinitions } from "../../subagents/load-agents.ts";
import type { AgentDefinition } from "../../subagents/types.ts";
import { withRules } from "../../permissions/parse-rule.ts";
import type { PermissionContext } from "../../permissions/types.ts";
import { sandboxPolicy, type SandboxPolicy } from "../../sandbox/policy.ts";
import { BASE_SYSTEM_PROMPT, styledSystemPrompt } from "../../system-prompt.ts";
import type { RunAgentOptions, Tool } from "../../types.ts";
import { untilAborted } from "../abortable.ts";
import { addedConfigDirs, readsAddedDirsMemory } from "./added-dirs.ts";
import { loadRunSettings, runPlace, startBypass } from "./run-settings.ts";
import type { SubagentMcpSetup } from "../mcp/subagent-mcp.ts";
import { knowSecrets, resourceInternals, type AgentResources, type NoticeSink } from "../resources.ts";
import { approvalsOf, mcpFor, subagentMcpRefusal, trustedServers } from "../mcp/run-mcp.ts";
import { describeDiagnostic } from "../diagnostic.ts";
import { emptyInventory, type RunInventory } from "./run-inventory.ts";
import { holdHolderHooks, hooksRestriction, settingsHooks } from "../hooks/setup-hooks.ts";
import { awsCommandsOf } from "../model/aws-commands.ts";
import { environmentOf, harnessEnvOf } from "./harness-env.ts";
import type { AwsCommands } from "@harness/llm";
import { secretValuesOf } from "@harness/llm/hidden-secrets";

export { DEFAULT_MANAGED_SETTINGS_PATH };

export type RunSetup = {
  /** False for a run with loadUserConfig: false (nothing below was discovered). */
  loaded: boolean;
  /** The conversation's id (`session_id` to hooks, ${CLAUDE_SESSION_ID} in skills). */
  sessionId: string;
  cwd: string;
  home: string;
  projectRoot: string;
  /** The environment of Bash, hooks and MCP servers: the run's, with the settings' `env` over it.
   * Undefined: this process's environment, unchanged. */
  childEnv?: Record<string, string>;
  /** The environment the harness itself reads (the model and its endpoint, sub-agents' model) and
   * makes its requests with (the model's, WebFetch's, http hooks', remote MCP servers'): the
   * run's, with the settings' `env` over it, as Claude Code applies it to itself; but where the
   * model is reached, with what credentials, and through which proxy trusting which CA, only the
   * user's and managed settings say (harness-env.ts). Undefined: no settings `env`. */
  harnessEnv?: Record<string, string>;
  settings: Settings;
  /** The models the run and its sub-agents may use (LoadedSettings.availableModels); undefined: any. */
  availableModels?: readonly string[];
  /** The plugins that loaded (plugins/discover.ts). */
  plugins: Plugin[];
  hooks: HooksConfig;
  /** From the settings and the run's permission mode. */
  permissions: PermissionContext;
  memory: MemoryFile[];
  /** Rule files with `paths`, brought in when a tool works on a file they match. */
  pathRules?: RuleFile[];
  /** False: the memory files of the directories the tools work in are not read (the project's
   * files are not among the run's setting sources). */
  nestedMemory?: false;
  /** The project's memory may import files from outside it (~/.claude.json says so). */
  externalImportsApproved?: boolean;
  git?: GitSnapshot;
  /** The skills, and the custom commands the model may run as skills (commands/as-skills.ts). */
  skills: Skill[];
  commands: SlashCommand[];
  agents: AgentDefinition[];
  /** Tools of the connected MCP servers (none when the run brings its own `tools`). */
  mcpTools: Tool[];
  /** Prompts of the connected MCP servers, as slash commands. */
  mcpPrompts: McpPromptCommand[];
  /** The connected MCP servers that have resources, which a prompt can name as `@server:uri`. */
  mcpResourceServers: string[];
  /** Each configured MCP server and how its start went. */
  mcpServers: McpServerStatus[];
  /** The plugins' language servers (started at their first file), when a plugin declares any and
   * the run does not bring its own `tools`. */
  lsp?: RunLsp;
  /** The started MCP servers' connections (for a probe of them: harness/mcp/probe.ts). */
  mcpConnections?: () => readonly McpConnection[];
  /** Where the servers a sub-agent's definition defines start (`refused` when the run brings its own
   * `tools`: then none do); absent when nothing was discovered (no agents either). */
  subagentMcp?: SubagentMcpSetup;
  /** The output style's name, when the settings choose one that loaded. */
  outputStyle?: string;
  /** The main agent's system prompt when the run gives none: the default, or the one of the
   * settings' `outputStyle`. */
  basePrompt: string;
  /** The apiKeyHelper of the user's or managed settings (a project's is not used). */
  apiKeyHelper?: string;
  /** The awsCredentialExport and awsAuthRefresh of the user's or managed settings (model/aws-commands.ts). */
  awsCommands?: AwsCommands;
  /** Where things came from and what was left out, for the inspection commands. */
  inventory: RunInventory;
};

type Diagnostic = { file: string; key?: string; message: string };

/** Never rejects on a user's file; `notice` gets every problem found. `refused`: the managed
 * settings cannot be read, and the run must not start (the message names the file). */
export async function loadRunSetup(options: RunAgentOptions, resources: AgentResources, notice: NoticeSink): Promise<RunSetup | { refused: string }> {
  const cwd = path.resolve(options.cwd);
  const home = options.home ?? os.homedir();
  if (options.loadUserConfig === false) {
    const bare = bareSetup(options, cwd, home);
    return { ...bare, sessionId: options.sessionId ?? resources.sessionId, permissions: withRunRules(bare.permissions, options.rules, bare.projectRoot, notice) };
  }

  const place = await runPlace({ ...options, home });
  const projectRoot = place.projectRoot;
  // The setting sources choose whose files the run reads, memory, skills, commands and agents
  // included, as Claude Code's do; plugins' and built-in ones stay.
  const readsFrom = (scope: string) => options.settingSources === undefined || !isFileScope(scope) || options.settingSources.includes(scope);
  const report = (diagnostics: readonly Diagnostic[]) => {
    for (const d of diagnostics) notice("warning", describeDiagnostic(d));
  };
  const where = { home, projectRoot };
  const managedPath = options.managedSettingsPath ?? DEFAULT_MANAGED_SETTINGS_PATH;
  const managedMcpFile = path.join(path.dirname(managedPath), "managed-mcp.json");
  const settingsLoad = loadRunSettings({ ...options, managedSettingsPath: managedPath }, place);
  // The directories added with the run lend their skills, commands and agents, and their memory
  // files when the environment (the settings' env included) says so.
  const additionalDirs = addedConfigDirs(options.additionalDirectories, cwd, [projectRoot, home]);
  // The memory files are read beside the settings, as most runs have neither added directories nor
  // claudeMdExcludes; the few whose settings do read them again once the settings say how.
  const eagerMemory = additionalDirs.length === 0 ? loadMemory({ cwd, projectRoot, home, additionalDirs: [] }) : undefined;
  eagerMemory?.catch(() => {});
  const memoryLoad = settingsLoad.then((loaded) => {
    const memoryDirs = additionalDirs.length > 0 && readsAddedDirsMemory({ ...(options.env ?? process.env), ...loaded.settings.env }) ? additionalDirs : [];
    const excludes = loaded.settings.claudeMdExcludes;
    if (eagerMemory && !excludes) return eagerMemory;
    return loadMemory({ cwd, projectRoot, home, additionalDirs: memoryDirs, ...(excludes && { excludes }) });
  });
  const autoMemoryLoad = settingsLoad.then((loaded) => runAutoMemory({ cwd, home }, { ...(options.env ?? process.env), ...loaded.settings.env }, loaded, (message) => notice("warning", message)));
  // Which plugins load depends on the settings (enabledPlugins); what they add is then read with
  // the user's own skills, commands and agents. With neither enabledPlugins nor --plugin-dir there
  // is none, and the plugin loader is not imported (a run starts sooner without it).
  const pluginsLoad = settingsLoad.then(async (loaded): Promise<PluginDiscovery> => {
    const { enabledPlugins } = loaded.settings;
    const pluginDirs = options.pluginDirs ?? [];
    if (enabledPlugins === undefined && pluginDirs.length === 0) return { plugins: [], diagnostics: [] };
    const { discoverPlugins } = await import("../../plugins/discover.ts");
    return discoverPlugins({ home, projectRoot, cwd, enabledPlugins, sources: loaded.sources, pluginDirs });
  });
  const withPlugins = pluginsLoad.then(({ plugins }) => ({ ...where, plugins, additionalDirs }));
  const skillsLoad = withPlugins.then(discoverSkills);
  const commandsLoad = withPlugins.then(discoverCommands);
  const agentsLoad = withPlugins.then(loadAgentDefinitions);
  const gitLoad = place.inGitRepo ? untilAborted(gitFor(resources, cwd), options.signal) : undefined;

  const loadedSettings = await settingsLoad;
  if (loadedSettings.policyProblem !== undefined) {
    // Nothing started yet (MCP servers start below): what is under way is let finish unread.
    for (const load of [memoryLoad, autoMemoryLoad, skillsLoad, commandsLoad, agentsLoad, gitLoad]) load?.catch(() => {});
    return { refused: loadedSettings.policyProblem };
  }
  report(loadedSettings.diagnostics);
  const { plugins, diagnostics: pluginDiagnostics } = await pluginsLoad;
  report(pluginDiagnostics);
  const settings = loadedSettings.settings;
  const childEnv = environmentOf(options.env ?? process.env, settings.env);
  // The settings' env is the run's: its secrets are hidden in what it shows and logs as the process's are.
  if (settings.env !== undefined) knowSecrets(resources, secretValuesOf(settings.env));
  const harnessEnv = settings.env === undefined ? undefined : harnessEnvOf(options.env ?? process.env, loadedSettings.sources);
  const hooksRestricted = hooksRestriction(loadedSettings);
  const hookPolicy = httpHookPolicyOf(loadedSettings.sources.map((source) => ({ path: source.path, fromRepository: comesWithRepository(source.scope), settings: source.settings })));
  report(hookPolicy.diagnostics);
  const inventory = emptyInventory();
  inventory.settingsFiles = loadedSettings.sources.map((source) => ({ scope: source.scope, path: source.path }));
  const fileHooks = settingsHooks({ sources: loadedSettings.sources, plugins, restricted: hooksRestricted, policy: hookPolicy.policy }, report, notice, inventory);
  const hooks = options.hooks ? mergeHooksConfigs([fileHooks, options.hooks]) : fileHooks;
  // Its http hooks' header values are secrets as an MCP server's are.
  knowSecrets(resources, httpHookSecrets(hooks));
  if (options.hooks) inventory.hookFiles.push({ file: "the program's own hooks", config: options.hooks });
  if (hooksRestricted) inventory.hooksRestricted = hooksRestricted;
  const ruled = withRunRules(
    permissionContext(loadedSettings, {
      cwd,
      home,
      ...(options.permissionMode && { mode: options.permissionMode }),
      ...(options.additionalDirectories && { additionalDirectories: options.additionalDirectories }),
    }),
    options.rules,
    projectRoot,
    notice,
  );
  const startMode = options.permissionMode ?? loadedSettings.permissions.defaultMode;
  if (startBypass(loadedSettings, options).bypassAvailable) ruled.bypassAvailable = true;
  const permissions = withUpdates(ruled, options.permissionUpdates, { cwd, home, projectRoot }, notice);
  if (permissions.bypassDisabled && startMode === "bypassPermissions") {
    notice("warning", BYPASS_DISABLED);
  }
  // The MCP servers' OAuth tokens are the run's MCP client's, never its commands'.
  const sandboxHidden = [...(options.sandboxHidden ?? []), mcpOAuthFile(home)];
  const sandbox = await sandboxFor(settings, permissions, { projectRoot, hidden: sandboxHidden }, childEnv, notice);
  if (sandbox) permissions.sandbox = sandbox;
  if (options.sandboxHidden?.length) permissions.hostHidden = options.sandboxHidden;
  const approvals = approvalsOf(loadedSettings.sources);
  const mcpSettings = { ...settings, mcpServers: trustedServers(loadedSettings.sources, notice) };
  const policy = mcpPolicyOf(
    loadedSettings.sources.map((source) => ({ path: source.path, managed: source.scope === "managed", trusted: !comesWithRepository(source.scope), settings: source.settings })),
    (message) => notice("warning", message),
  );
  const mcpRules = await mcpStartRules(policy, managedMcpFile);
  // The main thread's agent (--agent, or the settings' `agent`) may define servers of its own; the
  // servers wait for the agent files only when there is such an agent.
  const mainAgentName = options.mainAgent?.trim() || settings.agent;
  const agentServers =
    typeof mainAgentName === "string" && mainAgentName.trim() !== ""
      ? mainAgentServers(withRunAgents((await agentsLoad).agents.filter((agent) => readsFrom(agent.source)), options.agents), mainAgentName)
      : undefined;
  const mcp =
    options.tools === undefined
      ? await mcpFor(
          resources,
          {
            projectRoot,
            home,
            settings: mcpSettings,
            approvals,
            ...(options.mcpApprovals && { granted: options.mcpApprovals }),
            rules: mcpRules,
            plugins,
            env: childEnv,
            ...(harnessEnv && { networkEnv: harnessEnv }),
            signal: options.signal,
            ...(options.mcpConfig && { given: options.mcpConfig }),
            ...(options.strictMcpConfig && { strict: true }),
            ...(options.sdkMcpServers && { sdk: options.sdkMcpServers }),
            ...(agentServers && { agent: agentServers }),
            inventory,
          },
          notice,
        )
      : undefined;

  const lsp = options.tools === undefined ? await runLspServers(resources, { plugins, projectRoot, env: childEnv }, report) : undefined;

  const [memory, autoMemory, skills, commands, agents, git, outputStyle] = await Promise.all([memoryLoad, autoMemoryLoad, skillsLoad, commandsLoad, agentsLoad, gitLoad, loadOutputStyle(settings.outputStyle, { ...where, plugins })]);
  for (const load of [memory, skills, commands, agents, outputStyle]) report(load.diagnostics);
  inventory.memoryNotes = [...memory.excluded.map((file) => ({ file, message: "left out by the settings' claudeMdExcludes" })), ...memory.diagnostics.map(({ file, message }) => ({ file, message }))];
  const memoryScope = (scope: string) => (scope === "parent" ? "project" : scope);
  memory.files = memory.files.filter((file) => readsFrom(memoryScope(file.scope)));
  memory.pathRules = memory.pathRules.filter((rule) => readsFrom(memoryScope(rule.scope)));
  // The model's own notes come last, as in Claude Code: after every file the user wrote.
  if (autoMemory?.index) memory.files.push(autoMemory.index);
  if (autoMemory) permissions.autoMemoryDir = autoMemory.dir;
  skills.skills = skills.skills.filter((skill) => readsFrom(skill.scope));
  commands.commands = commands.commands.filter((command) => readsFrom(command.scope));
  agents.agents = agents.agents.filter((agent) => readsFrom(agent.source));
  const runAgents = (options.agents ?? []).map((agent) => withParsedHooks(agent, report));
  holdHolderHooks([...agents.agents, ...runAgents, ...skills.skills], hooksRestricted, hookPolicy.policy, notice);
  const apiKeyHelper = apiKeyHelperOf(loadedSettings.sources, notice);
  const awsCommands = awsCommandsOf(loadedSettings.sources, notice);
  const subagentMcp: SubagentMcpSetup = {
    cwd: projectRoot,
    env: childEnv,
    ...(harnessEnv && { networkEnv: harnessEnv }),
    oauthFile: mcpOAuthFile(home),
    rules: mcpRules,
    ...subagentMcpRefusal(options, mcpRules),
    runServers: mcp?.status().map((server) => server.name) ?? [],
    runResources: mcp?.resourceConnections ?? (() => []),
    knowSecrets: (values) => knowSecrets(resources, values),
  };
  return {
    loaded: true,
    sessionId: options.sessionId ?? resources.sessionId,
    ...(apiKeyHelper !== undefined && { apiKeyHelper }),
    ...(Object.keys(awsCommands).length > 0 && { awsCommands }),
    cwd,
    home,
    projectRoot,
    childEnv,
    ...(harnessEnv && { harnessEnv }),
    settings,
    ...(loadedSettings.availableModels && { availableModels: loadedSettings.availableModels }),
    plugins,
    hooks,
    permissions,
    memory: memory.files,
    pathRules: memory.pathRules,
    ...(!readsFrom("project") && { nestedMemory: false }),
    externalImportsApproved: memory.externalImportsApproved === true,
    ...(git && { git }),
    skills: [...skills.skills, ...commandSkills(commands.commands, skills.skills)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    commands: commands.commands,
    agents: lsp ? lsp.agents(withRunAgents(agents.agents, runAgents), options.builtinTools) : withRunAgents(agents.agents, runAgents),
    mcpTools: mcp?.tools ?? [],
    mcpPrompts: mcp?.prompts ?? [],
    mcpResourceServers: mcp?.resourceServers ?? [],
    mcpServers: mcp?.status() ?? [],
    ...(mcp && { mcpConnections: mcp.connections }),
    ...(lsp && { lsp }),
    subagentMcp,
    ...(outputStyle.style && { outputStyle: outputStyle.style.name }),
    basePrompt: withAutoMemory(outputStyle.style ? styledSystemPrompt(outputStyle.style) : BASE_SYSTEM_PROMPT, autoMemory),
    inventory,
  };
}

/** The prompt with the section on the auto memory directory, when auto memory is on. A prompt the
 * run gives in place of this one goes without it, as in Claude Code. */
function withAutoMemory(prompt: string, autoMemory: RunAutoMemory | undefined): string {
  return autoMemory ? `${prompt}\n\n${autoMemoryInstructions(autoMemory.dir)}` : prompt;
}

/** The servers the agent named `name` defines in its file, if it defines any (those it names are
 * configured elsewhere, and start as configured). */
function mainAgentServers(agents: readonly AgentDefinition[], name: unknown): { file: string; servers: Record<string, unknown> } | undefined {
  const agent = typeof name === "string" && name.trim() !== "" ? agents.find((candidate) => candidate.name === name.trim()) : undefined;
  const defined = (agent?.mcpServers ?? []).filter((server) => server.config !== undefined);
  if (!agent || defined.length === 0) return undefined;
  return { file: agent.file ?? `the agent ${agent.name}`, servers: Object.fromEntries(defined.map((server) => [server.name, server.config])) };
}

/** A copy of `agent` (one given with the run, RunAgentOptions.agents) whose hooks are those that
 * parse, as an agent file's: a caller may hand them over unchecked (the Agent SDK's initialize). */
function withParsedHooks(agent: AgentDefinition, report: (d: readonly Diagnostic[]) => void): AgentDefinition {
  if (agent.hooks === undefined) return agent;
  const { hooks: raw, ...rest } = agent;
  const parsed = frontmatterHooks(raw, `--agents ${agent.name}`, "agent");
  report(parsed.diagnostics);
  return parsed.config ? { ...rest, hooks: parsed.config } : rest;
}

/** The agents of the files, with those given with the run in place of any of the same name (Claude
 * Code ranks --agents above every agent file). */
function withRunAgents(loaded: AgentDefinition[], given: RunAgentOptions["agents"]): AgentDefinition[] {
  if (!given || given.length === 0) return loaded;
  const names = new Set(given.map((agent) => agent.name));
  return [...loaded.filter((agent) => !names.has(agent.name)), ...given];
}

/** The run's sandbox policy, when the settings turn the sandbox on, with why it cannot run here if
 * it cannot (said once per run). */
async function sandboxFor(
  settings: Settings,
  permissions: PermissionContext,
  { projectRoot, hidden }: { projectRoot: string; hidden: readonly string[] },
  env: Record<string, string>,
  notice: NoticeSink,
): Promise<SandboxPolicy | undefined> {
  const policy = sandboxPolicy(settings.sandbox, {
    cwd: permissions.cwd,
    home: permissions.home,
    projectRoot,
    hidden,
    additionalDirectories: permissions.additionalDirectories,
    allowRules: permissions.rules.allow,
    denyRules: permissions.rules.deny,
  });
  if (!policy) return undefined;
  for (const note of policy.notes) notice("warning", note);
  // Imported only when the settings turn the sandbox on: a run without it starts sooner.
  const { sandboxUnavailable } = await import("../../sandbox/runtime.ts");
  const unavailable = await sandboxUnavailable(env);
  if (unavailable === undefined) return policy;
  const then = policy.failIfUnavailable ? "Bash commands are refused (sandbox.failIfUnavailable)" : "Bash commands run outside it, with the usual approvals";
  notice("warning", `The sandbox is on in the settings but cannot run here: ${unavailable}. ${then}.`);
  return { ...policy, unavailable };
}

function bareSetup(options: RunAgentOptions, cwd: string, home: string): RunSetup {
  const setup: RunSetup = {
    loaded: false,
    sessionId: options.sessionId ?? "",
    cwd,
    home,
    projectRoot: options.projectRoot === undefined ? cwd : path.resolve(cwd, options.projectRoot),
    settings: {},
    plugins: [],
    // The program's own hooks are no file's: they run all the same (as the inventory lists them).
    hooks: options.hooks ?? {},
    permissions: {
      mode: options.permissionMode ?? "default",
      rules: { allow: [], ask: [], deny: [] },
      cwd,
      home,
      additionalDirectories: [],
      ...(options.sandboxHidden?.length && { hostHidden: options.sandboxHidden }),
    },
    memory: [],
    skills: [],
    commands: [],
    agents: [],
    mcpTools: [],
    mcpPrompts: [],
    mcpResourceServers: [],
    mcpServers: [],
    basePrompt: BASE_SYSTEM_PROMPT,
    inventory: emptyInventory(),
  };
  if (options.hooks) setup.inventory.hookFiles.push({ file: "the program's own hooks", config: options.hooks });
  if (options.env !== undefined) setup.childEnv = environmentOf(options.env, undefined);
  return setup;
}

/** The run's own rules (RunAgentOptions.rules) over the settings'; one that does not parse is said
 * and left out. Under the managed settings' allowManagedPermissionRulesOnly the allow rules are left
 * out too, as Claude Code ignores --allowedTools then; the deny rules only refuse, and stay. */
function withRunRules(permissions: PermissionContext, rules: RunAgentOptions["rules"], root: string, notice: NoticeSink): PermissionContext {
  if (!rules) return permissions;
  const ignored = permissions.managedRulesOnly === true && (rules.allow ?? []).length > 0;
  if (ignored) notice("warning", "The run's allowed tools are ignored: the managed settings let only their own permission rules allow calls (allowManagedPermissionRulesOnly).");
  const allow = withRules(permissions, "allow", ignored ? [] : (rules.allow ?? []), { root, source: "the run's allowed tools" });
  const deny = withRules(allow.permissions, "deny", rules.deny ?? [], { root, source: "the run's disallowed tools" });
  for (const { text, error } of [...allow.errors, ...deny.errors]) notice("warning", `The run's permission rule "${text}" is left out: ${error}`);
  return deny.permissions;
}

/** `permissions` with the session's earlier permission updates applied (RunAgentOptions.permissionUpdates). */
function withUpdates(permissions: PermissionContext, updates: RunAgentOptions["permissionUpdates"], where: UpdateWhere, notice: NoticeSink): PermissionContext {
  if (!updates || updates.length === 0) return permissions;
  const applied = applyPermissionUpdates(permissions, updates, where);
  for (const message of applied.errors) notice("warning", message);
  return applied.permissions;
}

function gitFor(resources: AgentResources, cwd: string): Promise<GitSnapshot> {
  const cache = resourceInternals(resources).git;
  let snapshot = cache.get(cwd);
  if (!snapshot) {
    // Not tied to one run's signal: the snapshot serves the whole conversation. gitSnapshot has its
    // own timeout.
    snapshot = gitSnapshot(cwd, new AbortController().signal);
    cache.set(cwd, snapshot);
  }
  return snapshot;
}

/** The last apiKeyHelper of the user's and managed settings; a project's is said not to count. */
function apiKeyHelperOf(sources: readonly SettingsSource[], notice: NoticeSink): string | undefined {
  let helper: string | undefined;
  for (const source of sources) {
    const value = source.settings.apiKeyHelper;
    if (value === undefined || value.trim() === "") continue;
    if (comesWithRepository(source.scope)) notice("warning", `${source.path} (apiKeyHelper): a project's settings cannot say how the API key is made; put apiKeyHelper in ~/.claude/settings.json.`);
    else helper = value;
  }
  return helper;
}
