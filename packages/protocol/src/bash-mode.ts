// Bash mode: a `!` line of a chat runs its command in the session's workspace without the model.
// Clients send it through the ordinary submit command, as the prompt Claude Code records for it
// (`<bash-input>command</bash-input>`); a runner's agent takes a prompt of exactly that form for
// a command to run, not for text to send to the model.

const BASH_INPUT = /^<bash-input>([\s\S]*)<\/bash-input>$/;

/** The prompt that asks for `command` to be run in bash mode. */
export function bashModePrompt(command: string): string {
  return `<bash-input>${command}</bash-input>`;
}

/** The command a bash-mode prompt asks for, or undefined for any other prompt (one with nothing
 * to run included). */
export function bashModeCommand(prompt: string): string | undefined {
  const command = BASH_INPUT.exec(prompt)?.[1]?.trim();
  return command ? command : undefined;
}
