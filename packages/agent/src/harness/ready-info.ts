// What a run works with once it is set up, for RunAgentOptions.onReady.
import { BUILTIN_PROMPTS } from "../commands/builtin-prompts.ts";
import { BUILTIN_COMMANDS, REPORT_COMMANDS } from "../commands/expand.ts";
import type { RunReadyInfo } from "../types.ts";
import type { RunContext } from "./run-context.ts";

export function readyInfo(ctx: RunContext): RunReadyInfo {
  const { setup } = ctx;
  const invocable = setup.skills.filter((s) => s.userInvocable && !s.command);
  const slash = new Set<string>([...BUILTIN_COMMANDS, ...REPORT_COMMANDS, ...BUILTIN_PROMPTS.map((p) => p.name), ...setup.commands.map((c) => c.name), ...invocable.map((s) => s.name), ...setup.mcpPrompts.map((p) => p.name)]);
  const argumentHints: Record<string, string> = {};
  for (const { name, argumentHint } of [...invocable, ...setup.commands]) if (argumentHint) argumentHints[name] = argumentHint;
  return {
    model: ctx.model,
    permissionMode: ctx.permissions.mode,
    tools: ctx.tools.map((tool) => tool.name),
    mcpServers: setup.mcpServers.map((server) => ({ name: server.name, status: server.state })),
    slashCommands: [...slash],
    argumentHints,
    agents: setup.agents.map((agent) => agent.name),
    skills: setup.skills.filter((skill) => !skill.command).map((skill) => skill.name),
    outputStyle: setup.outputStyle ?? "default",
    plugins: setup.plugins.map((plugin) => ({ name: plugin.name, path: plugin.root })),
    bypassDisabled: ctx.permissions.bypassDisabled === true,
    bypassAvailable: ctx.permissions.bypassAvailable === true,
  };
}
