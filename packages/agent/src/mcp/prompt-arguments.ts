// An MCP prompt's slash command read into the prompt's arguments, apart from the prompts' client
// (prompts.ts): a run reads its prompt with this whether or not any MCP server is configured.
import type { McpPromptCommand } from "./prompts.ts";

/** The words after the command, given to the prompt's arguments in the order it lists them; the
 * last argument takes whatever words are left. Missing required arguments make an error that names
 * them and shows the usage. */
export function promptArguments(command: McpPromptCommand, given: string): { ok: true; args: Record<string, string> } | { ok: false; message: string } {
  const words = given.trim() === "" ? [] : given.trim().split(/\s+/);
  const args: Record<string, string> = {};
  command.arguments.forEach((arg, i) => {
    const last = i === command.arguments.length - 1;
    const value = last ? words.slice(i).join(" ") : words[i];
    if (value) args[arg.name] = value;
  });
  const missing = command.arguments.filter((arg) => arg.required && args[arg.name] === undefined).map((arg) => arg.name);
  if (missing.length > 0) return { ok: false, message: `/${command.name} needs ${missing.join(", ")}. Usage: ${promptUsage(command)}` };
  if (command.arguments.length === 0 && words.length > 0) return { ok: false, message: `/${command.name} takes no arguments.` };
  return { ok: true, args };
}

export function promptUsage(command: McpPromptCommand): string {
  return [`/${command.name}`, ...command.arguments.map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`))].join(" ");
}
