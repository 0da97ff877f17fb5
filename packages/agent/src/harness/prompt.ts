// What the user's prompt asks for. A leading "/name" is a slash command:
// - /help answers with the list of commands, without a model call;
// - /compact [instructions] summarizes the conversation now (the summary is the reply);
// - /clear starts a new conversation: the run returns an empty transcript, so the earlier messages
//   leave the model's context and the record alike (the host keeps its own log of them if it wants);
// - a custom command or a user-invocable skill is expanded into the prompt the model gets, and its
//   `model` frontmatter chooses the model of the run; its `!` shell commands run first, their
//   output in their place (command-shells.ts), and the files it names with `@path` are read and put
//   after it (command-files.ts);
// - anything else, unknown "/words" included, is sent as typed.
import { expandSlashCommand } from "../commands/expand.ts";
import { slashCommandHelp } from "../commands/help.ts";
import type { RunSetup } from "./setup.ts";

export type PromptPlan =
  | {
      kind: "send";
      text: string;
      model?: string;
      allowedTools?: string[];
      /** A custom command's or skill's text: its `!` commands run (`shellCommands`) and the files it
       * names with `@path` are read before it is sent. */
      expanded?: boolean;
      shellCommands?: boolean;
    }
  | { kind: "help"; text: string }
  | { kind: "compact"; instructions: string }
  | { kind: "clear" };

export function planPrompt(prompt: string, setup: Pick<RunSetup, "commands" | "skills">): PromptPlan {
  if (!prompt.trimStart().startsWith("/")) return { kind: "send", text: prompt };
  const expansion = expandSlashCommand(prompt, setup);
  switch (expansion.kind) {
    case "none":
      return { kind: "send", text: prompt };
    case "builtin":
      if (expansion.name === "help") return { kind: "help", text: slashCommandHelp(setup) };
      if (expansion.name === "compact") return { kind: "compact", instructions: expansion.prompt };
      return { kind: "clear" };
    default: {
      const plan: PromptPlan = { kind: "send", text: expansion.prompt, expanded: true };
      if (expansion.model) plan.model = expansion.model;
      if (expansion.allowedTools) plan.allowedTools = expansion.allowedTools;
      if (expansion.shellCommands.length > 0) plan.shellCommands = true;
      return plan;
    }
  }
}
