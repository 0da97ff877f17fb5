// The commands Tab completes after "/" in `harness chat`: the chat's own, and those of the agent.
// A local chat's project is on this machine, where its runs read their commands: it offers the
// project's and the user's custom commands, the skills a user may invoke and the plugins', read
// as a run reads them. A chat attached to a shared server offers the agent's built-ins until a run
// of the session has said what it has: the server's project may be another directory (or another
// machine), and only its runs read what it holds. What a run said (the state's `available`) is
// offered in both, with the MCP servers' prompts, which only a run that started the servers knows.
import { CHAT_COMMANDS } from "./chat-line.ts";

/** How long the names read stay good: commands added meanwhile show at the next Tab after it. */
const FRESH_MS = 5_000;

/** Where a local chat's runs read their commands: its project directory, the home, and the plugins
 * given with --plugin-dir (absolute paths). */
export type CommandPlace = { cwd: string; home: string; pluginDirs?: readonly string[] };

/** `project`: a local chat's (undefined: a shared server's chat). `ran`: the commands the session's
 * last run said it had (the state's `available`), MCP servers' prompts among them, read at each Tab. */
export function commandNames(project: CommandPlace | undefined, ran: () => readonly string[] | undefined = () => undefined): () => Promise<readonly string[]> {
  let read: { at: number; names: Promise<readonly string[]> } | undefined;
  return async () => {
    if (!read || Date.now() - read.at > FRESH_MS) read = { at: Date.now(), names: names(project) };
    // A name with control characters would reach the terminal as it is (escape sequences): left out.
    return [...new Set([...(await read.names), ...(ran() ?? [])])].filter((name) => !/[\x00-\x1f\x7f-\x9f]/.test(name));
  };
}

async function names(project: CommandPlace | undefined): Promise<readonly string[]> {
  // The agent's modules load at the first Tab, not with the chat.
  const { builtinSlashCommands, slashCommandsBeforeStart } = await import("@harness/agent/slash-commands");
  const agent = project ? await slashCommandsBeforeStart({ ...project, pluginDirs: project.pluginDirs && [...project.pluginDirs] }).catch(() => builtinSlashCommands()) : builtinSlashCommands();
  return [...CHAT_COMMANDS, ...agent];
}
