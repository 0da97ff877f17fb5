// What the user's prompt asks for. A leading "/name" is a slash command:
// - /help answers with the list of commands, without a model call;
// - /compact [instructions] summarizes the conversation now (the summary is the reply);
// - /context and /cost answer, without a model call, with how the context window is used and what
//   the conversation has cost so far (reports/usage.ts); /mcp, /memory, /agents, /hooks and
//   /status with what the run loaded and from where (reports/inspect.ts); a user's own command of
//   the name wins; so do /todos, /export [file], /model, /permissions and /add-dir (reports/session.ts,
//   reports/conversation-export.ts);
// - /clear starts a new conversation: the run returns an empty transcript, so the earlier messages
//   leave the model's context and the record alike (the host keeps its own log of them if it wants);
// - a custom command or a user-invocable skill is expanded into the prompt the model gets, and its
//   `model` frontmatter chooses the model of the run; its `!` shell commands run first, their
//   output in their place (shells.ts); a skill with `context: fork` runs in a sub-agent
//   first, and the model gets the typed prompt with the sub-agent's answer (forked-skill.ts);
// - /mcp__<server>__<prompt> [args] asks that MCP server for the prompt (mcp/prompts.ts), and what it
//   answers is sent; missing arguments are answered with its usage, without a model call;
// - `<bash-input>command</bash-input>` (a chat's `!` line, bash mode) runs the command as a Bash
//   call of the user's, without a model call; the command and its output join the conversation
//   (builtin.ts);
// - anything else, unknown "/words" included, is sent as typed.
// Whatever is sent, the files it names with `@path` are read and put after it (mentions/files.ts),
// and so are the MCP resources it names with `@server:uri` (mentions/mcp-resources.ts).
import { bashModeCommand } from "@harness/protocol/bash-mode";
import { expandSlashCommand, type ReportCommand } from "../../commands/expand.ts";
import { slashCommandHelp } from "../../commands/help.ts";
import { promptArguments } from "../../mcp/prompt-arguments.ts";
import type { McpPromptCommand } from "../../mcp/prompts.ts";
import type { HooksConfig } from "../../hooks/types.ts";
import type { Skill } from "../../skills/types.ts";
import type { RunSetup } from "../setup/setup.ts";

export type PromptPlan =
  | {
      kind: "send";
      text: string;
      model?: string;
      allowedTools?: string[];
      /** A custom command's or skill's text whose `!` commands run before it is sent. */
      shellCommands?: boolean;
      /** A skill with `context: fork`: `text` is its sub-agent's task, and the model gets the
       * typed prompt with that sub-agent's answer. */
      fork?: { skill: Skill; args: string };
      /** A typed skill's own hooks, which join the run's. */
      hooks?: HooksConfig;
    }
  | { kind: "mcp-prompt"; command: McpPromptCommand; args: Record<string, string> }
  | { kind: "help"; text: string }
  | { kind: "compact"; instructions: string }
  | { kind: "clear" }
  /** /context, /cost, /mcp, /memory, /agents, /hooks, /status, /todos, /export, /model,
   * /permissions, /add-dir: reports on the conversation and the run, answered without the model;
   * `args` is what followed the name (/export's file, /add-dir's path). */
  | { kind: "report"; name: ReportCommand; args: string }
  /** Bash mode: `command` runs without the model. */
  | { kind: "bash"; command: string };

export function planPrompt(prompt: string, setup: Pick<RunSetup, "commands" | "skills" | "mcpPrompts" | "sessionId">): PromptPlan {
  const command = bashModeCommand(prompt);
  if (command !== undefined) return { kind: "bash", command };
  if (!prompt.trimStart().startsWith("/")) return { kind: "send", text: prompt };
  const expansion = expandSlashCommand(prompt, setup);
  switch (expansion.kind) {
    case "none": {
      const command = setup.mcpPrompts.find((candidate) => candidate.name === expansion.name);
      if (!command) return { kind: "send", text: prompt };
      const args = promptArguments(command, prompt.trim().slice(command.name.length + 1));
      return args.ok ? { kind: "mcp-prompt", command, args: args.args } : { kind: "help", text: args.message };
    }
    case "builtin":
      if (expansion.name === "help") return { kind: "help", text: slashCommandHelp(setup) };
      if (expansion.name === "compact") return { kind: "compact", instructions: expansion.prompt };
      if (expansion.name === "clear") return { kind: "clear" };
      return { kind: "report", name: expansion.name, args: expansion.prompt };
    default: {
      const plan: PromptPlan = { kind: "send", text: expansion.prompt };
      if (expansion.model) plan.model = expansion.model;
      if (expansion.allowedTools) plan.allowedTools = expansion.allowedTools;
      if (expansion.shellCommands.length > 0) plan.shellCommands = true;
      if (expansion.kind === "skill" && expansion.fork) plan.fork = expansion.fork;
      if (expansion.kind === "skill" && expansion.hooks) plan.hooks = expansion.hooks;
      return plan;
    }
  }
}
