// Finding custom slash commands: every `*.md` under `<home>/.claude/commands/` (the user's) and
// `<projectRoot>/.claude/commands/` (the project's), subfolders included. On a name clash the
// user's command wins, as skills do (skills.md): a repository cannot replace the user's command.
// Plugins' commands are named `<plugin>:<name>`: those of its `commands/`, or of the paths its
// manifest gives instead (directories, or .md files). A project's command in a subfolder named as a
// plugin (`.claude/commands/kit/greet.md`) cannot take a plugin's name either: the plugin's wins,
// as the user installed it, and the project's is named in a diagnostic.
import { isMissingError, readConfigDir, readConfigText, statConfig } from "../config/files.ts";
import path from "node:path";
import { argumentNamesField } from "../skills/arguments.ts";
import { parseFrontmatter } from "../frontmatter.ts";
import { realPathOf } from "../files/real-paths.ts";
import { booleanField, hintField, textField, toolListField } from "../skills/frontmatter-fields.ts";
import { MAX_LISTED_DESCRIPTION } from "../skills/registry.ts";
import { isBuiltinCommand } from "./expand.ts";
import type { CommandDiagnostic, CommandDiscovery, CommandScope, SlashCommand } from "./types.ts";
import { withPluginVariables, type Plugin } from "../plugins/types.ts";
import { userConfigDir } from "../config/user-config-dir.ts";

export type DiscoverCommandsOptions = {
  home: string;
  /** Without it only the user's commands are found. */
  projectRoot?: string;
  /** Plugins whose commands (their `commandPaths`) are added, namespaced. */
  plugins?: readonly Plugin[];
  /** Directories added with the run (--add-dir), whose commands count as the project's, after its
   * own (see harness/setup/added-dirs.ts). */
  additionalDirs?: readonly string[];
};

/** Subfolders nested deeper than this are not searched. */
const MAX_DEPTH = 8;

/** Never rejects: a file with broken frontmatter is skipped with a diagnostic. Commands come back
 * sorted by name. */
export async function discoverCommands(options: DiscoverCommandsOptions): Promise<CommandDiscovery> {
  const diagnostics: CommandDiagnostic[] = [];
  const dirs: [string, CommandScope][] = [[path.join(userConfigDir(options.home), "commands"), "user"]];
  if (options.projectRoot !== undefined) dirs.push([path.join(options.projectRoot, ".claude", "commands"), "project"]);
  for (const dir of options.additionalDirs ?? []) dirs.push([path.join(dir, ".claude", "commands"), "project"]);
  const found = await Promise.all(
    dirs.map(async ([dir, scope]) => {
      const files = await markdownFiles(dir, [], diagnostics);
      return Promise.all(files.map((segments) => readCommand(dir, segments, scope, diagnostics)));
    }),
  );
  const fromPlugins: (SlashCommand | undefined)[][] = [];
  for (const plugin of options.plugins ?? []) {
    for (const where of plugin.commandPaths) fromPlugins.push(await pluginCommands(where, plugin, diagnostics));
  }
  const [user = [], ...project] = found;
  const byName = new Map<string, SlashCommand>();
  for (const command of [...user, ...fromPlugins.flat(), ...project.flat()]) {
    if (!command) continue;
    if (isBuiltinCommand(command.name)) {
      diagnostics.push({ file: command.path, message: `Command /${command.name} is a built-in command; this file is never used. Rename it to use it.` });
      continue;
    }
    const earlier = byName.get(command.name);
    if (earlier?.plugin !== undefined && command.scope === "project") {
      diagnostics.push({ file: command.path, message: `Command /${command.name} is plugin ${earlier.plugin}'s; this file is never used. Rename it to use it.` });
    }
    if (!earlier) byName.set(command.name, command);
  }
  const commands = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { commands, diagnostics };
}

/** The commands of one of a plugin's command paths: a directory (none when it is the default
 * `commands/` and missing) or one .md file. */
async function pluginCommands(where: string, plugin: Plugin, diagnostics: CommandDiagnostic[]): Promise<(SlashCommand | undefined)[]> {
  const isFile = await statConfig(where).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (isFile) return [await readCommand(path.dirname(where), [path.basename(where)], "plugin", diagnostics, plugin)];
  const files = await markdownFiles(where, [], diagnostics);
  if (files.length === 0 && where !== path.join(plugin.root, "commands")) {
    diagnostics.push({ file: where, message: `Plugin ${plugin.name}: its manifest names this commands path, where no .md command file is found.` });
  }
  return Promise.all(files.map((segments) => readCommand(where, segments, "plugin", diagnostics, plugin)));
}

/** Paths (as segments below `base`) of the .md files under `base/...segments`, sorted. A link to a
 * directory that holds it (`l0 -> .`) is not followed: it would list every command again under
 * each of its names, more at every level. `ancestors`: the real paths of the directories above (for
 * `base` itself, found once it is known to exist: most runs have no commands directory). */
async function markdownFiles(base: string, segments: string[], diagnostics: CommandDiagnostic[], ancestors?: ReadonlySet<string>): Promise<string[][]> {
  const dir = path.join(base, ...segments);
  let entries;
  try {
    entries = await readConfigDir(dir);
  } catch (error) {
    if (!isMissingError(error)) diagnostics.push({ file: dir, message: `Cannot read the commands directory: ${(error as Error).message}` });
    return [];
  }
  const above = ancestors ?? new Set([realPathOf(dir)]);
  const out: string[][] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".")) continue;
    const isDir = entry.isDirectory() || (entry.isSymbolicLink() && !entry.name.endsWith(".md"));
    if (isDir && segments.length < MAX_DEPTH) {
      const real = realPathOf(path.join(dir, entry.name));
      if (above.has(real)) continue;
      out.push(...(await markdownFiles(base, [...segments, entry.name], diagnostics, new Set([...above, real]))));
    }
    else if (entry.name.endsWith(".md") && (entry.isFile() || entry.isSymbolicLink())) out.push([...segments, entry.name]);
  }
  return out;
}

async function readCommand(base: string, segments: string[], scope: CommandScope, diagnostics: CommandDiagnostic[], plugin?: Plugin): Promise<SlashCommand | undefined> {
  const file = path.join(base, ...segments);
  let text: string;
  try {
    text = await readConfigText(file);
  } catch (error) {
    diagnostics.push({ file, message: `Cannot read the command file: ${(error as Error).message}` });
    return undefined;
  }
  const name = [...(plugin ? [plugin.name] : []), ...segments.slice(0, -1), (segments.at(-1) as string).slice(0, -".md".length)].join(":");
  const frontmatter = parseFrontmatter(text);
  if (!frontmatter.ok) {
    diagnostics.push({ file, message: `Command /${name} skipped: ${frontmatter.error}.` });
    return undefined;
  }
  const { data } = frontmatter;
  const body = plugin ? withPluginVariables(frontmatter.body.trim(), plugin) : frontmatter.body.trim();
  const optional = <T>(field: { value?: T; error?: string }, key: string): T | undefined => {
    if (field.error) diagnostics.push({ file, key, message: `Ignored: ${field.error}.` });
    return field.value;
  };
  const described = optional(textField(data, "description"), "description")?.trim();
  const command: SlashCommand = {
    name,
    scope,
    ...(plugin && { plugin: plugin.name }),
    path: file,
    description: described || firstLine(body) || "Custom command",
    body,
  };
  const userOnly = optional(booleanField(data, "disable-model-invocation"), "disable-model-invocation");
  if (described && userOnly !== true) command.modelInvocable = true;
  if (command.modelInvocable && described!.length > MAX_LISTED_DESCRIPTION) {
    diagnostics.push({ file, key: "description", message: `The description is ${described!.length} characters long; the model is shown its first ${MAX_LISTED_DESCRIPTION}. Put the details in the command's body.` });
  }
  const hint = optional(hintField(data, "argument-hint"), "argument-hint");
  if (hint) command.argumentHint = hint;
  const names = argumentNamesField(data.arguments);
  if (names?.length) command.argumentNames = names;
  const allowedTools = optional(toolListField(data, "allowed-tools"), "allowed-tools");
  if (allowedTools) command.allowedTools = allowedTools;
  const model = optional(textField(data, "model"), "model");
  if (model && model !== "inherit") command.model = model;
  return command;
}

/** The first non-empty line, without heading marks, at most 100 characters. */
function firstLine(body: string): string {
  const line = body.split("\n").find((candidate) => candidate.trim())?.trim().replace(/^#+\s*/, "") ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
