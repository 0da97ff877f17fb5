// Claude Code's interactive commands that `harness chat` has no counterpart of. Typed into the
// chat, one is answered by it, saying what to use here, instead of reaching the model as a prompt
// (the agent would send an unknown "/theme" to the model). A command or skill of the agent's own of
// such a name is the agent's, as any other.

/** By name (after "/"): what the chat has instead, in a sentence or two. */
export const CLAUDE_ONLY_COMMANDS: Readonly<Record<string, string>> = {
  "terminal-setup": "nothing to set up: Alt+Enter, Ctrl+J or a line ending in \\ start a new line of the prompt at any terminal; Shift+Enter does too where the terminal tells it apart (the kitty keyboard protocol)",
  config: "harness chat has no settings panel: the settings are Claude Code's files (.claude/settings.json and .claude/settings.local.json in the project, ~/.claude/settings.json); /status says which were read, /model and /mode change this session's; the notifications follow Claude Code's \"preferredNotifChannel\" (~/.claude.json or ~/.claude/settings.json)",
  settings: "harness chat has no settings panel: the settings are Claude Code's files (.claude/settings.json and .claude/settings.local.json in the project, ~/.claude/settings.json); /status says which were read, /model and /mode change this session's",
  statusline: 'set the settings\' "statusLine" ({"type": "command", "command": "~/.claude/statusline.sh"}): the chat shows the first line the command prints below the typed one',
  "output-style": "harness chat has no output style picker: the settings' \"outputStyle\" names the style",
  doctor: "run `harness doctor` in a shell in the project: it checks Node, the model and its endpoint, the settings, MCP servers, the sandbox and the server's data directory; here /status says the model, the permission mode and the settings read, /mcp the MCP servers, /hooks the hooks",
  usage: "no Claude plan here, so no plan limits: /cost says this session's tokens and cost",
  "release-notes": "harness --version says the version; the repository's history says what changed",
  login: "no account here: the agent uses the API key in ANTHROPIC_API_KEY (or a cloud provider's credentials)",
  logout: "no account here: the agent uses the API key in ANTHROPIC_API_KEY (or a cloud provider's credentials)",
  ide: "harness chat connects to no IDE",
  theme: "harness chat follows the terminal's colours; NO_COLOR turns colour off",
  bug: "open an issue in harness's repository, with what harness --version and harness doctor say",
  feedback: "open an issue in harness's repository, with what harness --version and harness doctor say",
};

/** What the chat says of `word` (a line's first word) when it is a Claude Code command it lacks
 * and not one of `agent` (the names of the agent's own commands, when known). */
export function claudeOnly(word: string, agent: readonly string[] = []): string | undefined {
  const name = word.startsWith("/") ? word.slice(1) : undefined;
  if (!name || !Object.hasOwn(CLAUDE_ONLY_COMMANDS, name) || agent.includes(name)) return undefined;
  return CLAUDE_ONLY_COMMANDS[name];
}
