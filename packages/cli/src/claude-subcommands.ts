// `claude`'s own commands that `harness` has no counterpart of (it has mcp, plugin and doctor):
// typed at the top level, one is answered saying what to use here, rather than taken for a prompt.

/** By name: what harness has instead. */
const INSTEAD: Readonly<Record<string, string>> = {
  config: "the settings are Claude Code's files (.claude/settings.json and .claude/settings.local.json in the project, ~/.claude/settings.json), read as Claude Code reads them; harness mcp manages MCP servers",
  update: "harness updates with its repository (git pull); harness --version says the version",
  install: "harness runs from its repository: put packages/cli/bin/harness on your PATH",
  "migrate-installer": "harness runs from its repository: put packages/cli/bin/harness on your PATH",
  "setup-token": "there is no account to sign in to; the agent uses the API key in ANTHROPIC_API_KEY (or a cloud provider's credentials)",
};

/** What `config`'s subcommands are called: `harness config set …` is that command, not a prompt. */
const CONFIG_VERBS = ["get", "set", "list", "add", "remove"];

/** The message for `argv` when it is one of claude's commands harness lacks (alone, or config with
 * one of its verbs); undefined otherwise, a prompt that starts with such a word included. */
export function claudeSubcommand(argv: readonly string[]): string | undefined {
  const [first, second] = argv;
  if (first === undefined || !Object.hasOwn(INSTEAD, first)) return undefined;
  if (argv.length > 1 && !(first === "config" && CONFIG_VERBS.includes(second))) return undefined;
  return `claude's "${first}" has no counterpart here: ${INSTEAD[first]}`;
}
