// The reports /mcp, /memory, /agents, /hooks and /status answer with, without a model call: what
// the run loaded from its configuration, where each part came from, and what was left out and why.
// Plain text, one item a line, in load order where order matters and sorted by name elsewhere.
import { HOOK_EVENT_NAMES, type Hook } from "../../hooks/types.ts";
import type { AgentDefinition } from "../../subagents/types.ts";
import type { RunSetup } from "../setup/setup.ts";
import { labelOf } from "../../hooks/http-label.ts";

type Setup = Pick<RunSetup, "mcpServers" | "memory" | "pathRules" | "agents" | "inventory" | "cwd" | "projectRoot" | "sessionId" | "permissions" | "loaded" | "outputStyle">;

/** /mcp: every configured server with its state, where it is configured and its tools. */
export function mcpReport(setup: Setup): string {
  const { mcpConfigured, mcpNotStarted } = setup.inventory;
  const rows = [
    ...setup.mcpServers.map((server) => {
      const where = mcpConfigured[server.name];
      const state =
        server.state === "connected"
          ? `connected, ${plural(server.toolCount, "tool")}`
          : server.needsSignIn
            ? (server.error ?? "needs sign-in")
            : server.state === "failed"
              ? `failed: ${(server.error ?? "no reason given").replaceAll("\n", "\n    ")}`
              : "closed";
      return { name: server.name, text: `${state}${where ? ` · ${where.scope} (${where.file})` : ""}` };
    }),
    ...mcpNotStarted.map((server) => ({ name: server.name, text: `${server.state}: ${server.reason} · ${server.scope} (${server.file})` })),
  ].sort(byName);
  if (rows.length === 0) return "No MCP servers are configured for this run. Add them with an .mcp.json in the project, in ~/.claude.json, or with --mcp-config.";
  const connected = setup.mcpServers.filter((server) => server.state === "connected").length;
  return [`MCP servers: ${connected} of ${rows.length} connected`, "", ...rows.map((row) => `  ${row.name}: ${row.text}`)].join("\n");
}

/** /memory: the memory files sent with every request, in the order they are sent, then the rules
 * that come in with the files they match, then those left out. */
export function memoryReport(setup: Setup): string {
  const lines: string[] = [];
  if (setup.memory.length === 0) lines.push("No memory files are loaded for this run.");
  else {
    lines.push("Memory files, in the order the model gets them:");
    for (const file of setup.memory) lines.push(`  ${file.path} (${file.scope}${file.importedFrom ? `, imported by ${file.importedFrom}` : ""}): ${size(Buffer.byteLength(file.content))}`);
  }
  const rules = setup.pathRules ?? [];
  if (rules.length > 0) {
    lines.push("", "Rules loaded when a tool works on a file they match:");
    for (const rule of rules) lines.push(`  ${rule.path} (${rule.scope}): ${(rule.paths ?? []).join(", ")}`);
  }
  const notes = setup.inventory.memoryNotes;
  if (notes.length > 0) lines.push("", "Left out or worth a look:", ...notes.map((note) => `  ${note.file}: ${note.message}`));
  lines.push("", "To edit memory, edit these files (or create CLAUDE.md in the project, or ~/.claude/CLAUDE.md for every project); the next run reads them.");
  return lines.join("\n");
}

/** /agents: the sub-agents the Task tool can start, by name, with where each comes from. */
export function agentsReport(setup: Setup): string {
  if (setup.agents.length === 0) return "No sub-agents are available to this run.";
  const agents = [...setup.agents].sort(byName);
  const lines = [`Sub-agents: ${agents.length}`, ""];
  for (const agent of agents) {
    lines.push(`  ${agent.name} · ${origin(agent)}`);
    lines.push(`    tools: ${agent.tools ? agent.tools.join(", ") : "all"}${agent.disallowedTools?.length ? ` (except ${agent.disallowedTools.join(", ")})` : ""} · model: ${agent.model ?? "inherit"}`);
  }
  lines.push("", "Add one as a Markdown file in .claude/agents/ (the project's) or ~/.claude/agents/ (yours), or with --agents.");
  return lines.join("\n");
}

/** /hooks: the hooks that run, by event in Claude Code's order, with their matcher, `if`, type and
 * the file that defines them. */
export function hooksReport(setup: Setup): string {
  const { hookFiles, hooksRestricted } = setup.inventory;
  const lines: string[] = [];
  if (hooksRestricted === "all") lines.push("No hooks run: the managed settings say disableAllHooks.", "");
  else if (hooksRestricted === "managed") lines.push("Only the managed settings' hooks (and their plugins') run: the others are ignored (allowManagedHooksOnly or disableAllHooks).", "");
  for (const event of HOOK_EVENT_NAMES) {
    const entries = hookFiles.flatMap(({ file, config }) => (config[event] ?? []).flatMap((group) => group.hooks.map((hook) => `    ${matcherOf(group.matcher)}${hook.type !== "callback" && hook.if ? ` if ${hook.if.text}` : ""} · ${hook.type}: ${what(hook)} · ${file}`)));
    if (entries.length > 0) lines.push(`  ${event}:`, ...entries);
  }
  if (lines.every((line) => !line.startsWith("  "))) lines.push("No hooks are configured for this run.");
  else lines.splice(hooksRestricted ? 2 : 0, 0, "Hooks, by event:");
  lines.push("", "Hooks are configured in the settings files' \"hooks\" (see /status for the files in effect).");
  return lines.join("\n");
}

/** /status: the run's model, permission mode, places, settings files and ids. */
export function statusReport(setup: Setup, run: { model: string; runId?: string }): string {
  const rows: [string, string][] = [
    ["Model:", run.model],
    ["Permission mode:", setup.permissions.mode],
    ["Working directory:", setup.cwd],
    ["Project root:", setup.projectRoot],
  ];
  if (setup.outputStyle) rows.push(["Output style:", setup.outputStyle]);
  if (setup.sessionId) rows.push(["Session id:", setup.sessionId]);
  if (run.runId) rows.push(["Run id:", run.runId]);
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `${label.padEnd(width)} ${value}`);
  const files = setup.inventory.settingsFiles;
  if (!setup.loaded) lines.push("", "Settings: none (the run reads no configuration files)");
  else if (files.length === 0) lines.push("", "Settings: no settings file was found");
  else lines.push("", "Settings files in effect, lowest precedence first:", ...files.map((file) => `  ${file.scope}: ${file.path}`));
  return lines.join("\n");
}

function origin(agent: AgentDefinition): string {
  if (agent.source === "built-in") return "built-in";
  if (agent.source === "cli") return "--agents";
  if (agent.source === "plugin") return `plugin ${agent.plugin ?? "?"}${agent.file ? ` (${agent.file})` : ""}`;
  return `${agent.source}${agent.file ? ` (${agent.file})` : ""}`;
}

function what(hook: Hook): string {
  switch (hook.type) {
    case "command":
      return hook.command;
    case "http":
      // As every message names it: a webhook's path or query may be its password.
      return labelOf(hook.url);
    case "callback":
      return `the program's callback ${hook.id}`;
    default:
      return oneLine(hook.prompt);
  }
}

function matcherOf(matcher: string | undefined): string {
  return matcher === undefined || matcher === "" || matcher === "*" ? "(all)" : matcher;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}

/** 512 B, 3.4 KB (of bytes). */
function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The report of the name (see REPORT_COMMANDS), /context and /cost aside (usage.ts). */
export function inspectReport(name: "mcp" | "memory" | "agents" | "hooks" | "status", setup: Setup, model: string): string {
  switch (name) {
    case "mcp":
      return mcpReport(setup);
    case "memory":
      return memoryReport(setup);
    case "agents":
      return agentsReport(setup);
    case "hooks":
      return hooksReport(setup);
    case "status":
      return statusReport(setup, { model });
  }
}
