// Custom commands the model may run with the Skill tool, as Claude Code offers them since it merged
// its commands into skills: those whose frontmatter describes them, unless it sets
// disable-model-invocation. The user's /name of a command is expanded from the command itself.
import path from "node:path";
import type { Skill } from "../skills/types.ts";
import type { SlashCommand } from "./types.ts";

/** `commands` as skills for the Skill tool and the skills listed to the model, but for those a
 * skill of the same name hides (a skill wins on a name clash, as for /name). */
export function commandSkills(commands: readonly SlashCommand[], skills: readonly Skill[]): Skill[] {
  const taken = new Set(skills.map((skill) => skill.name));
  return commands
    .filter((command) => !taken.has(command.name))
    .map((command) => {
      const skill: Skill = {
        name: command.name,
        displayName: command.name,
        description: command.description,
        scope: command.scope,
        ...(command.plugin && { plugin: command.plugin }),
        path: command.path,
        baseDir: path.dirname(command.path),
        body: command.body,
        command: true,
        disableModelInvocation: command.modelInvocable !== true,
        // /name of a command is answered from the command (expandSlashCommand).
        userInvocable: false,
      };
      if (command.allowedTools) skill.allowedTools = command.allowedTools;
      if (command.argumentNames) skill.argumentNames = command.argumentNames;
      if (command.argumentHint) skill.argumentHint = command.argumentHint;
      return skill;
    });
}
