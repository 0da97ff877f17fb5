// What the program driving `harness run --input-format stream-json` (the Claude Agent SDK, as it
// drives Claude Code) sets over the control protocol: the session's setup at `initialize` (system
// prompt, sub-agents, hooks, MCP servers, and the disallowed tools, settings, managed settings and
// plugins it may send there instead of on the command line), the model and permission mode from the
// next model call on (`set_model`, held to the settings' availableModels, `set_permission_mode`), the end of the turn under way
// (`interrupt`); and, with --permission-prompt-tool stdio, the approvals it is asked for
// (`can_use_tool`).
import { isDeepStrictEqual } from "node:util";
import { isJsonObject } from "@harness/agent/json-text";
import { bypassRefusal, mcpToolName, parsePermissionUpdates, type AgentDefinition, type HooksConfig, type PermissionUpdate, type RunAgentOptions, type RunReadyInfo, type Settings } from "@harness/agent";
import { joinParentTiers } from "@harness/agent/settings-parent-tier";
import type { StartBypass } from "@harness/agent/run-settings";
import type { ApprovalDecision, ApprovalRequest, BackendContext } from "@harness/runner/headless";
import { PERMISSION_MODES, type PermissionModeName } from "../../args.ts";
import type { ControlChannel, ControlRequest } from "./control.ts";
import { sdkMcpRelay } from "./mcp.ts";
import { carries, readInitialize, RESTRICTING_FIELDS, type InitializeSetup } from "./initialize.ts";

export type SessionLaunch = {
  /** The model and permission mode of the command line. */
  model?: string;
  permissionMode?: PermissionModeName;
  /** --allow-dangerously-skip-permissions: bypassPermissions may be switched to, by a control
   * request or an approval's setMode. */
  allowBypass?: boolean;
  /** --settings was given: settings in the initialize request are refused, as Claude Code refuses
   * both (neither is dropped quietly). */
  settingsFlag?: boolean;
  /** --permission-prompt-tool stdio: calls that need approval are asked over the protocol. */
  askOverStdio?: boolean;
  /** --managed-settings' tier: the initialize request's managed settings join it. */
  managed?: Settings;
  /** The environment the initialize request's agents' server definitions are checked against. */
  env: Readonly<Record<string, string | undefined>>;
  /** Reads the settings as the next turn will (the initialize request's among them), for whether
   * bypassPermissions may be switched to: asked when a set_permission_mode to it comes before a turn
   * has loaded them. An error: the settings cannot be loaded (the managed settings are broken). */
  startBypass?: (settings: TurnSettings) => Promise<StartBypass | { error: string }>;
  /** Why the turns may not be switched to `model`, their settings read as the next turn will read
   * them (their availableModels, or managed settings that cannot be loaded); undefined: they may. */
  modelRefusal?: (settings: TurnSettings, model: string) => Promise<string | undefined>;
  /** Says what the run cannot do as asked, in one line (on stderr): a program may not look at the
   * error answer of a request, nor at the result of a message not run for it. */
  warn(message: string): void;
};

/** What the next turn runs with, as the control requests left it. */
export type TurnSettings = {
  model?: string;
  permissionMode?: PermissionModeName;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  agents?: AgentDefinition[];
  /** The program's hook callbacks (hooks.ts). */
  hooks?: HooksConfig;
  /** The program's in-process MCP servers (mcp.ts). */
  sdkMcpServers?: RunAgentOptions["sdkMcpServers"];
  /** The initialize request's `mcpServers`, started as --mcp-config's are, after them. */
  mcpConfig?: { file: string; servers: unknown };
  /** The permission updates of the approvals so far ("always allow"), but for the mode, which
   * `permissionMode` holds: the turns that follow start with them. */
  permissionUpdates?: PermissionUpdate[];
  /** The initialize request's disallowedTools: on top of --disallowedTools'. */
  disallowedTools?: string[];
  /** The initialize request's settings, in place of --settings' (the Agent SDK sends one or the other). */
  flagSettings?: { file: string; settings: unknown };
  /** The initialize request's managed settings, joined with --managed-settings' (what restricts of both). */
  managedSettings?: Settings;
  /** The initialize request's local plugins' directories, as given, loaded with --plugin-dir's. */
  pluginDirs?: string[];
  /** set_max_thinking_tokens: the thinking budget of the turns that follow (0: none); unset, the
   * command line's. */
  thinkingTokens?: number;
  /** The session could be switched to bypassPermissions from its start (it started in it, by the
   * command line or the settings' defaultMode): the turns that follow may be, whatever mode they
   * start in, so that an approval's setMode in them is taken as set_permission_mode's is. */
  allowBypass?: boolean;
};

/** What a turn under way is told, and how it is asked about its calls. */
export type TurnControls = {
  signal: AbortSignal;
  /** The changes reach the agent as they are: dontAsk among the modes. */
  onConfigure: BackendContext["onConfigure"];
  requestApproval?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** Keeps the permission updates the turn applied, whoever gave them (an answer to can_use_tool,
   * a PermissionRequest hook, a permission prompt tool), for the turns that follow
   * (RunAgentOptions.onPermissionUpdates). */
  keep(updates: readonly PermissionUpdate[]): void;
  /** Told what the turn starts with (RunAgentOptions.onReady). */
  ready(info: RunReadyInfo): void;
  /** Whether an interrupt (or a denial that interrupts) stopped the turn. */
  interrupted(): boolean;
  end(): void;
};

/** The fields of an initialize request Claude Code says it applied, and the key of its answer that says it. */
const APPLIED = { mcpServers: "mcp_servers_applied", disallowedTools: "disallowed_tools_applied", settings: "settings_applied", plugins: "plugins_applied", managedSettings: "managed_settings_applied" };

export function streamSession(launch: SessionLaunch) {
  /** Whether bypassPermissions may be switched to, by the agent's own rule (bypassRefusal): read
   * from the settings (launch.startBypass) while no turn has loaded them, then what the last turn
   * started with. Once able to, the session stays so, as a Claude Code session decides it when it
   * starts. */
  const bypass = { bypassAvailable: launch.allowBypass === true || launch.permissionMode === "bypassPermissions", bypassDisabled: false };
  const settings: TurnSettings = { model: launch.model, permissionMode: launch.permissionMode, ...(bypass.bypassAvailable && { allowBypass: true }) };
  let turn: { abort: AbortController; listeners: Set<(change: Record<string, unknown>) => void> } | undefined;
  /** The turns started so far; an interrupt that came after a message whose turn has not begun yet
   * (the input is read ahead) stops that turn as it begins. */
  let started = 0;
  let interruptNext = false;
  /** The channel the session's own requests (approvals, hook callbacks, MCP messages) go over, once bound. */
  let channel: ControlChannel | undefined;
  const ask: ControlChannel["ask"] = (request, signal) => (channel ? channel.ask(request, signal) : Promise.reject(new Error("no control channel to ask over")));
  const mcp = sdkMcpRelay(ask);
  const tell = (change: Record<string, unknown>) => {
    for (const listener of turn?.listeners ?? []) listener(change);
  };

  const setMode = (mode: PermissionModeName) => {
    settings.permissionMode = mode;
  };
  /** The updates a turn applied, kept for the turns that follow (the turn under way applied them
   * itself). They come screened by the agent (screenUpdates): what it refused, a switch to
   * bypassPermissions the run may not make among them, it said and left out, so the turns after
   * keep just what this one took. */
  const keep = (updates: readonly PermissionUpdate[]) => {
    for (const change of updates) {
      if (change.type === "setMode") setMode(change.mode);
      else settings.permissionUpdates = [...(settings.permissionUpdates ?? []), change];
    }
  };

  /** What the last turn started with; before any, the servers named at initialize are pending. */
  let ready: RunReadyInfo | undefined;
  const mcpStatus = () => {
    if (ready) {
      return ready.mcpServers.map(({ name, status }) => {
        const prefix = mcpToolName(name, "");
        const tools = ready!.tools.filter((tool) => tool.startsWith(prefix)).map((tool) => ({ name: tool.slice(prefix.length) }));
        return { name, status: status === "closed" ? "failed" : status, ...(status === "connected" && { tools }) };
      });
    }
    const names = [...Object.keys(isJsonObject(settings.mcpConfig?.servers) ? settings.mcpConfig.servers : {}), ...(settings.sdkMcpServers?.names ?? [])];
    return [...new Set(names)].map((name) => ({ name, status: "pending" }));
  };

  /** The set_permission_mode and set_model requests not yet applied, in order (either may wait for
   * the settings): a turn starts after them. */
  let changes = Promise.resolve();
  const inTurn = (change: () => Promise<Record<string, unknown>>) => {
    const applied = changes.then(change);
    changes = applied.then(
      () => {},
      () => {},
    );
    return applied;
  };
  const switchMode = async (mode: PermissionModeName): Promise<Record<string, unknown>> => {
    const refused = mode === "bypassPermissions" ? bypassRefusal(ready ? bypass : await bypassBeforeStart()) : undefined;
    if (refused) throw new Error(`set_permission_mode: ${refused}`);
    setMode(mode);
    tell({ permissionMode: mode });
    return {};
  };
  /** `model` (undefined: the command line's) for the turn under way and those that follow, unless
   * the settings leave it out: the turns keep the model they had. */
  const switchModel = async (model: string | undefined): Promise<Record<string, unknown>> => {
    const refused = model !== undefined && launch.modelRefusal ? await launch.modelRefusal(settings, model) : undefined;
    if (refused) throw new Error(`set_model: ${refused}`);
    settings.model = model ?? launch.model;
    if (settings.model !== undefined) tell({ model: settings.model });
    return {};
  };
  /** What the settings say of bypassPermissions before a turn has loaded them. */
  const bypassBeforeStart = async () => {
    if (!launch.startBypass) return bypass;
    const read = await launch.startBypass(settings);
    if ("error" in read) throw new Error(`set_permission_mode: ${read.error}`);
    bypass.bypassDisabled = read.bypassDisabled;
    if (read.bypassAvailable) bypass.bypassAvailable = settings.allowBypass = true;
    return bypass;
  };

  const handle = (request: ControlRequest, messagesBefore = 0): Record<string, unknown> | Promise<Record<string, unknown>> => {
    switch (request.subtype) {
      case "initialize":
        return initialize(request);
      case "interrupt":
        if (turn) turn.abort.abort(new Error("interrupted"));
        else if (messagesBefore > started) interruptNext = true;
        return {};
      case "set_permission_mode": {
        const mode = PERMISSION_MODES.find((known) => known === request.mode);
        if (!mode) throw new Error(`set_permission_mode: the mode must be one of ${PERMISSION_MODES.join(", ")}, not ${JSON.stringify(request.mode ?? null)}`);
        return inTurn(() => switchMode(mode));
      }
      case "set_model": {
        const model = typeof request.model === "string" && request.model.trim() !== "" && request.model !== "default" ? request.model.trim() : undefined;
        if (request.model !== undefined && request.model !== null && typeof request.model !== "string") throw new Error("set_model: the model must be a name, or null for the default");
        return inTurn(() => switchModel(model));
      }
      case "mcp_message":
        return mcp.receive(request);
      case "mcp_status":
        return { mcpServers: mcpStatus() };
      case "set_max_thinking_tokens": {
        const tokens = request.max_thinking_tokens;
        if (tokens === null || tokens === undefined) delete settings.thinkingTokens;
        else if (typeof tokens === "number" && Number.isSafeInteger(tokens) && tokens >= 0) settings.thinkingTokens = tokens;
        else throw new Error(`set_max_thinking_tokens: max_thinking_tokens must be a whole number of tokens (0 for no thinking), or null for the default, not ${JSON.stringify(tokens)}`);
        return {};
      }
      default:
        throw new Error(`unsupported control request subtype: ${request.subtype}`);
    }
  };

  /** The first initialize request that was kept: a later one (the Agent SDK's reinitialize) changes
   * none of what it set, as in Claude Code, but for the hooks it registers again. */
  let first: ControlRequest | undefined;
  /** Why an initialize carrying restrictions was refused: the messages after it are not run. */
  let refusal: string | undefined;

  const initialize = (request: ControlRequest): Record<string, unknown> => {
    let setup: InitializeSetup;
    try {
      setup = readInitialize(request, { ask, settingsFlag: launch.settingsFlag, env: launch.env });
    } catch (error) {
      const message = (error as Error).message;
      if (RESTRICTING_FIELDS.some((field) => carries(request, field))) {
        // Said on stderr too: restrictions not taken. Before any initialize was kept, the messages
        // that follow are not run for it; after, the first one's stay in force.
        launch.warn(message);
        if (!first) refusal = message;
      }
      throw error;
    }
    for (const note of setup.notes) launch.warn(note);
    if (!first) {
      first = request;
      refusal = undefined;
      keepSetup(setup);
    } else if (setup.hooks) {
      // A later initialize: its hooks replace the first's.
      settings.hooks = setup.hooks;
    }
    return answer(request);
  };

  const keepSetup = (setup: InitializeSetup) => {
    if (setup.systemPrompt !== undefined) settings.systemPrompt = setup.systemPrompt;
    if (setup.appendSystemPrompt !== undefined) settings.appendSystemPrompt = setup.appendSystemPrompt;
    if (setup.agents) settings.agents = setup.agents;
    if (setup.hooks) settings.hooks = setup.hooks;
    if (setup.sdkServerNames && setup.sdkServerNames.length > 0) settings.sdkMcpServers = { names: setup.sdkServerNames, relay: mcp.relay };
    if (setup.mcpServers) settings.mcpConfig = { file: "the initialize request", servers: setup.mcpServers };
    if (setup.disallowedTools) settings.disallowedTools = setup.disallowedTools;
    if (setup.managed) settings.managedSettings = launch.managed ? joinParentTiers(launch.managed, setup.managed) : setup.managed;
    if (setup.flagSettings) settings.flagSettings = setup.flagSettings;
    if (setup.pluginDirs) settings.pluginDirs = setup.pluginDirs;
  };

  /** Claude Code's answer to an initialize: a program that sent MCP servers, settings or
   * disallowedTools treats their absence (or false) as not applied, and ends the session. */
  const answer = (request: ControlRequest): Record<string, unknown> => {
    // What the request carries is applied where it is what the first initialize set (for the first
    // one, all of it); a later one changes nothing else, and Claude Code answers the same way.
    const applied = Object.entries(APPLIED).filter(([field]) => carries(request, field)).map(([field, key]) => [key, isDeepStrictEqual(first![field], request[field])]);
    const manifests = carries(request, "sdkMcpServerManifests") && settings.sdkMcpServers ? Object.fromEntries(settings.sdkMcpServers.names.map((name) => [name, "not_honoured"])) : undefined;
    return {
      ...(carries(request, "hooks") && { hooks_applied: true }),
      // Hook matchers' onFailure "block" is honoured (hooks.ts).
      hook_on_failure_supported: true,
      ...Object.fromEntries(applied),
      ...(manifests && { sdk_mcp_manifests_parked: manifests }),
      commands: [],
      agents: (settings.agents ?? []).map((agent) => ({ name: agent.name, description: agent.description })),
      output_style: "default",
      available_output_styles: ["default"],
      models: [],
      account: {},
      pid: process.pid,
    };
  };

  return {
    handle,
    settings,
    /** Why the next message is not run, if it is not: an initialize carrying restrictions (disallowed
     * tools, settings, managed settings, hooks) was refused, and the run cannot hold to them. */
    refusal: () =>
      refusal && `The message is not run: the initialize request was refused (${refusal}), and what it asked the run to hold to is not in force.`,
    /** Settles once the set_permission_mode and set_model requests read so far are applied or
     * refused: the next turn starts with the mode and model they leave. */
    changesSettled: () => changes,
    /** The channel `handle` answers on: the session asks its own requests over it. */
    bind(control: ControlChannel) {
      channel = control;
    },
    /** The controls of a turn starting now; `runSignal` stops the whole run. */
    startTurn(runSignal: AbortSignal): TurnControls {
      const current = { abort: new AbortController(), listeners: new Set<(change: Record<string, unknown>) => void>() };
      turn = current;
      started++;
      if (interruptNext) current.abort.abort(new Error("interrupted"));
      interruptNext = false;
      const signal = AbortSignal.any([runSignal, current.abort.signal]);
      return {
        signal,
        onConfigure(listener) {
          const told = listener as (change: Record<string, unknown>) => void;
          current.listeners.add(told);
          return () => current.listeners.delete(told);
        },
        ...(launch.askOverStdio && {
          // In dontAsk the agent refuses what would need approval itself: nothing is asked.
          requestApproval: (request: ApprovalRequest) => askToUse(ask, request, signal, current.abort),
        }),
        keep,
        ready: (info) => {
          ready = info;
          bypass.bypassDisabled = info.bypassDisabled;
          if (info.bypassAvailable) bypass.bypassAvailable = settings.allowBypass = true;
        },
        interrupted: () => current.abort.signal.aborted,
        end() {
          if (turn === current) turn = undefined;
        },
      };
    },
  };
}

/** Asks the other end whether `request`'s call may run (Claude Code's can_use_tool). A request a
 * change of mode answered meanwhile is withdrawn, and that answer stands. */
async function askToUse(ask: ControlChannel["ask"], request: ApprovalRequest, signal: AbortSignal, turn: AbortController): Promise<ApprovalDecision> {
  const withdraw = new AbortController();
  request.answered?.then(() => withdraw.abort(), () => {});
  let answer: Record<string, unknown>;
  try {
    answer = await ask(
      { subtype: "can_use_tool", tool_name: request.toolName, input: request.input ?? {}, tool_use_id: request.toolUseId, description: request.description },
      AbortSignal.any([signal, withdraw.signal]),
    );
  } catch (error) {
    if (withdraw.signal.aborted && request.answered) return request.answered;
    return { behavior: "deny", reason: `Permission to use ${request.toolName} was not given: ${(error as Error).message}` };
  }
  if (answer.behavior === "allow") {
    const updated = answer.updatedInput;
    // An input changed into something that is not one cannot be run, nor the call asked about in its place.
    if (updated !== undefined && updated !== null && (typeof updated !== "object" || Array.isArray(updated))) {
      return { behavior: "deny", reason: `Permission to use ${request.toolName} was not given: the answer's updatedInput is not an object` };
    }
    // Nor is a call run on an "always" that cannot be read: what it would have allowed is unknown.
    const updates = parsePermissionUpdates(answer.updatedPermissions);
    if ("error" in updates) return { behavior: "deny", reason: `Permission to use ${request.toolName} was not given: the answer's ${updates.error}` };
    return {
      behavior: "allow",
      ...(updated !== undefined && updated !== null && { updatedInput: updated as Record<string, unknown> }),
      ...(updates.length > 0 && { updatedPermissions: updates }),
    };
  }
  if (answer.behavior === "deny") {
    // Claude Code's deny with interrupt: true also ends the turn.
    if (answer.interrupt === true) turn.abort(new Error("interrupted"));
    return { behavior: "deny", ...(typeof answer.message === "string" && answer.message !== "" && { reason: answer.message }) };
  }
  return { behavior: "deny", reason: `Permission to use ${request.toolName} was not given: the answer was neither allow nor deny` };
}
