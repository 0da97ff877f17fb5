// What a command line may give a run in place of configuration files (settings, MCP servers,
// built-in tools to offer, agents' hooks), checked the way the run reads them, so that a mistake is said before
// the run starts rather than as a notice once it runs.
import { parseHooksConfig } from "../hooks/parse-config.ts";
import { parseServerEntry } from "../mcp/config.ts";
import { EXIT_PLAN_MODE_TOOL_NAME } from "../plan-mode/texts.ts";
import { validateSettings } from "../settings/validate.ts";
import { SKILL_TOOL_NAME } from "../skills/skill-tool.ts";
import { TASK_TOOL_NAME } from "../subagents/task-tool.ts";
import { builtinTools } from "../tools/index.ts";

export { parseHooksConfig, parseServerEntry, validateSettings };

/** The names of the built-in tools a run may offer (RunAgentOptions.builtinTools), Agent included
 * as Task's other name. */
export function builtinToolNames(): string[] {
  return [...builtinTools().map((tool) => tool.name), EXIT_PLAN_MODE_TOOL_NAME, TASK_TOOL_NAME, "Agent", SKILL_TOOL_NAME];
}
