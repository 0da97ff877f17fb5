// The initialize request's fields, read all before any is kept: one that cannot be taken refuses the
// request, naming the field, and the session keeps none of what it carried (session.ts).
import type { AgentDefinition, HooksConfig, Settings } from "@harness/agent";
import { isJsonObject } from "@harness/agent/json-text";
import { inlineAgentChecks } from "../agent-checks.ts";
import { parseInlineAgents } from "../inline-agents.ts";
import type { ControlRequest } from "./control.ts";
import { sdkHooks, type Ask } from "./hooks.ts";
import { sdkServerNames } from "./mcp.ts";
import { permissionRuleList, sdkManagedSettings } from "../agent-sdk/managed.ts";
import { initializePlugins, initializeSettings } from "./setup.ts";

/** What an initialize request sets up, checked. */
export type InitializeSetup = {
  systemPrompt?: string;
  appendSystemPrompt?: string;
  agents?: AgentDefinition[];
  hooks?: HooksConfig;
  sdkServerNames?: string[];
  mcpServers?: Record<string, unknown>;
  disallowedTools?: string[];
  flagSettings?: { file: string; settings: unknown };
  pluginDirs?: string[];
  /** What restricts of the managed settings (run/agent-sdk/managed.ts). */
  managed?: Settings;
  /** What is taken without acting on all of it, to be said on stderr once the request is kept. */
  notes: string[];
};

/** The fields that restrict what the run may do: a request carrying one that is refused leaves the
 * run unable to honour what it was asked to hold to. */
export const RESTRICTING_FIELDS = ["disallowedTools", "settings", "managedSettings", "hooks"] as const;

/** Whether `request` carries `field` (null is as absent, as the Agent SDK sends it). */
export const carries = (request: ControlRequest, field: string) => request[field] !== undefined && request[field] !== null;

/** `env`: the environment a server definition's variables are checked against. */
export type InitializeContext = { ask: Ask; settingsFlag?: boolean; env: Readonly<Record<string, string | undefined>> };

/** `request` read; throws, naming the field, on the first that cannot be taken. */
export function readInitialize(request: ControlRequest, context: InitializeContext): InitializeSetup {
  const given = (field: string) => carries(request, field);
  const setup: InitializeSetup = { notes: [] };
  const prompt = Array.isArray(request.systemPrompt) ? request.systemPrompt.filter((part) => typeof part === "string").join("\n\n") : request.systemPrompt;
  // Empty (the Agent SDK's default) leaves the built-in prompt, as --system-prompt "" does here.
  if (typeof prompt === "string" && prompt.trim() !== "") setup.systemPrompt = prompt;
  if (typeof request.appendSystemPrompt === "string" && request.appendSystemPrompt !== "") setup.appendSystemPrompt = request.appendSystemPrompt;
  if (given("agents")) {
    const agents = parseInlineAgents(JSON.stringify(request.agents), inlineAgentChecks(context.env, "the initialize request's agents"), (note) => setup.notes.push(`initialize: agents: ${note}`));
    if (typeof agents === "string") throw new Error(`initialize: agents: ${agents}`);
    setup.agents = agents;
  }
  if (given("hooks")) {
    const { hooks, unknownEvents, ignoredFields } = sdkHooks(request.hooks, context.ask);
    setup.hooks = hooks;
    if (unknownEvents.length > 0) setup.notes.push(`initialize: hooks of ${unknownEvents.join(", ")} are not run: harness run has no such event`);
    const one = ignoredFields.length === 1;
    if (ignoredFields.length > 0) setup.notes.push(`initialize: ${ignoredFields.join(", ")} ${one ? "is" : "are"} not acted on by harness run; the hooks run without ${one ? "it" : "them"}`);
  }
  if (given("sdkMcpServers")) setup.sdkServerNames = sdkServerNames(request.sdkMcpServers);
  if (given("mcpServers")) {
    if (!isJsonObject(request.mcpServers)) throw new Error("initialize: mcpServers must be an object of MCP servers by name, as --mcp-config's mcpServers");
    // Each entry is checked as it starts: a bad one is said, naming it, and the others start.
    setup.mcpServers = request.mcpServers;
  }
  if (given("settings") && context.settingsFlag) throw new Error("initialize: settings: the run was started with --settings too; give the settings one way (the Agent SDK's settingsDelivery)");
  if (given("disallowedTools")) setup.disallowedTools = permissionRuleList(request.disallowedTools, "initialize: disallowedTools");
  if (given("settings")) setup.flagSettings = initializeSettings(request.settings);
  if (given("plugins")) setup.pluginDirs = initializePlugins(request.plugins);
  if (given("managedSettings")) {
    const managed = sdkManagedSettings(request.managedSettings, "initialize: managedSettings");
    setup.managed = managed.settings;
    if (managed.note) setup.notes.push(managed.note);
  }
  return setup;
}
