// The commands Tab completes after "/" in `harness chat`: the chat's own, and those of the agent.
// A local chat's project is on this machine, where its runs read their commands: it offers the
// project's and the user's custom commands, the skills a user may invoke and the plugins', read
// as a run reads them. A chat attached to a shared server offers the agent's built-ins until a run
// of the session has said what it has: the server's project may be another directory (or another
// machine), and only its runs read what it holds. What a run said (the state's `available`) is
// offered in both, with the MCP servers' prompts, which only a run that started the servers knows.
import { CHAT_COMMANDS } from "../line.ts";

/** How long the names read stay good: commands added meanwhile show at the next Tab after it. */
const FRESH_MS = 5_000;

/** Where a local chat's runs read their commands: its project directory, the home, and the plugins
 * given with --plugin-dir (absolute paths). */
export type CommandPlace = { cwd: string; home: string; pluginDirs?: readonly string[] };

/** The names, read at most every FRESH_MS; `hint(name)`: the argument hint of a local chat's custom
 * command or skill (front matter `argument-hint`), as the last names read found it. */
export type CommandNames = (() => Promise<readonly string[]>) & { hint(name: string): string | undefined };

type Found = { names: readonly string[]; hints: ReadonlyMap<string, string> };

/** The commands the session's last run said it had (the state's `available`), MCP servers' prompts
 * among them, and their argument hints, read at each Tab (and hint). */
export type RanCommands = () => { names?: readonly string[]; hints?: Readonly<Record<string, string>> } | undefined;

/** `project`: a local chat's (undefined: a shared server's chat). `ran`: see RanCommands. */
export function commandNames(project: CommandPlace | undefined, ran: RanCommands = () => undefined): CommandNames {
  let read: { at: number; found: Promise<Found> } | undefined;
  let hints: ReadonlyMap<string, string> = new Map();
  const names = async () => {
    if (!read || Date.now() - read.at > FRESH_MS) read = { at: Date.now(), found: find(project) };
    const found = await read.found;
    hints = found.hints;
    // A name with control characters would reach the terminal as it is (escape sequences): left out.
    return [...new Set([...found.names, ...(ran()?.names ?? [])])].filter(printable);
  };
  const hint = (name: string) => {
    const said = ran()?.hints;
    const fromRun = said && Object.hasOwn(said, name) && typeof said[name] === "string" && printable(said[name]) ? said[name] : undefined;
    return hints.get(name) ?? fromRun;
  };
  return Object.assign(names, { hint });
}

const printable = (text: string) => !/[\x00-\x1f\x7f-\x9f]/.test(text);

async function find(project: CommandPlace | undefined): Promise<Found> {
  // The agent's modules load at the first Tab, not with the chat.
  const { builtinSlashCommands, slashCommandUsageBeforeStart } = await import("@harness/agent/slash-commands");
  const agent = project
    ? await slashCommandUsageBeforeStart({ ...project, pluginDirs: project.pluginDirs && [...project.pluginDirs] }).catch(() => ({ names: builtinSlashCommands(), hints: new Map<string, string>() }))
    : { names: builtinSlashCommands(), hints: new Map<string, string>() };
  // A hint goes to the terminal as it is: one with control characters is left out.
  return { names: [...CHAT_COMMANDS, ...agent.names], hints: new Map([...agent.hints].filter(([, hint]) => printable(hint))) };
}
