// Finding skills: `<home>/.claude/skills/<name>/SKILL.md` (the user's) and
// `<projectRoot>/.claude/skills/<name>/SKILL.md` (the project's). On a name clash the user's skill
// wins, as in Claude Code: a repository cannot replace a skill of the user's with its own (its
// instructions, its allowed-tools, its `!` commands) under the name the user types. Plugins' skills
// are named `<plugin>:<skill>`, ${CLAUDE_PLUGIN_ROOT} in their text standing for the plugin's
// directory; nor can a project's skill take a plugin's name (a directory named `kit:release`): the
// plugin's wins, as the user installed it, and the project's is named in a diagnostic.
import { isMissingError, readConfigDir, readConfigText, statConfig } from "../config/files.ts";
import path from "node:path";
import { argumentNamesField } from "./arguments.ts";
import { parseFrontmatter } from "../frontmatter.ts";
import { frontmatterHooks } from "../hooks/parse-config.ts";
import { booleanField, hintField, textField, toolListField } from "./frontmatter-fields.ts";
import { MAX_LISTED_DESCRIPTION } from "./registry.ts";
import type { Skill, SkillDiagnostic, SkillDiscovery, SkillScope } from "./types.ts";
import { withPluginVariables, type Plugin } from "../plugins/types.ts";
import { userConfigDir } from "../config/user-config-dir.ts";

/** The sub-agent a skill with `context: fork` runs in when it names none, as in Claude Code. */
export const DEFAULT_FORK_AGENT = "general-purpose";

export type DiscoverSkillsOptions = {
  home: string;
  /** Without it only the user's skills are found. */
  projectRoot?: string;
  /** Plugins whose skills (their `skillDirs`) are added, namespaced. */
  plugins?: readonly Plugin[];
  /** Directories added with the run (--add-dir), whose skills count as the project's, after its
   * own (see harness/setup/added-dirs.ts). */
  additionalDirs?: readonly string[];
};

/** Never rejects: a skill with a bad or incomplete frontmatter is skipped with a diagnostic and the
 * others still load. Skills come back sorted by name, so everything built from them is stable. */
export async function discoverSkills(options: DiscoverSkillsOptions): Promise<SkillDiscovery> {
  const diagnostics: SkillDiagnostic[] = [];
  const dirs: [string, SkillScope][] = [[path.join(userConfigDir(options.home), "skills"), "user"]];
  if (options.projectRoot !== undefined) dirs.push([path.join(options.projectRoot, ".claude", "skills"), "project"]);
  for (const dir of options.additionalDirs ?? []) dirs.push([path.join(dir, ".claude", "skills"), "project"]);
  const found = await Promise.all(dirs.map(([dir, scope]) => skillsIn(dir, scope, diagnostics)));
  const fromPlugins: Skill[][] = [];
  for (const plugin of options.plugins ?? []) fromPlugins.push((await Promise.all(plugin.skillDirs.map((dir) => pluginSkillsIn(dir, plugin, diagnostics)))).flat());
  const [user = [], ...project] = found;
  const byName = new Map<string, Skill>();
  for (const skill of [...user, ...fromPlugins.flat(), ...project.flat()]) {
    const earlier = byName.get(skill.name);
    if (earlier?.plugin !== undefined && skill.scope === "project") {
      diagnostics.push({ file: skill.path, message: `Skill ${skill.name} is plugin ${earlier.plugin}'s; this skill is never used. Rename its directory to use it.` });
    }
    if (!earlier) byName.set(skill.name, skill);
  }
  const skills = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { skills, diagnostics };
}

/** A plugin's skills directory: its `<name>/SKILL.md`, or, when it holds a SKILL.md itself (a
 * manifest's `"skills": ["./"]`), that one skill, named by its frontmatter's `name`. */
async function pluginSkillsIn(dir: string, plugin: Plugin, diagnostics: SkillDiagnostic[]): Promise<Skill[]> {
  const single = await statConfig(path.join(dir, "SKILL.md")).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (!single) return skillsIn(dir, "plugin", diagnostics, plugin);
  const skill = await readSkill(dir, "plugin", diagnostics, plugin, true);
  return skill ? [skill] : [];
}

async function skillsIn(dir: string, scope: SkillScope, diagnostics: SkillDiagnostic[], plugin?: Plugin): Promise<Skill[]> {
  let entries: string[];
  try {
    entries = (await readConfigDir(dir)).map((entry) => entry.name).sort();
  } catch (error) {
    if (!isMissingError(error)) diagnostics.push({ file: dir, message: `Cannot read the skills directory: ${(error as Error).message}` });
    return [];
  }
  const skills = await Promise.all(entries.filter((name) => !name.startsWith(".")).map((name) => readSkill(path.join(dir, name), scope, diagnostics, plugin)));
  return skills.filter((skill): skill is Skill => skill !== undefined);
}

/** `plugin`: the skill is the plugin's, named `<plugin>:<directory>`; `named`: by its frontmatter's
 * name rather than its directory's (a plugin's single skill, whose directory is wherever the plugin
 * was installed). */
async function readSkill(baseDir: string, scope: SkillScope, diagnostics: SkillDiagnostic[], plugin?: Plugin, named = false): Promise<Skill | undefined> {
  const dirName = path.basename(baseDir);
  const file = path.join(baseDir, "SKILL.md");
  try {
    if (!(await statConfig(baseDir)).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  let text: string;
  try {
    text = await readConfigText(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    diagnostics.push({ file, message: code === "ENOENT" ? `The skill directory ${dirName} has no SKILL.md; it was skipped.` : `Cannot read SKILL.md: ${(error as Error).message}` });
    return undefined;
  }
  const frontmatter = parseFrontmatter(text);
  if (!frontmatter.ok) {
    diagnostics.push({ file, message: `Skill ${dirName} skipped: ${frontmatter.error}.` });
    return undefined;
  }
  const { data } = frontmatter;
  const skip = (key: string, message: string): undefined => {
    diagnostics.push({ file, key, message: `Skill ${dirName} skipped: ${message}` });
    return undefined;
  };
  // Without `name:`, the skill is named after its directory, as in Claude Code.
  const name = textField(data, "name");
  if (name.error) return skip("name", name.error);
  const displayName = name.value?.trim() || dirName;
  const description = textField(data, "description");
  if (description.error || !description.value?.trim()) return skip("description", description.error ?? "the frontmatter has no description (a skill needs `description:`, which tells the model when to use it).");
  if (description.value.trim().length > MAX_LISTED_DESCRIPTION) {
    diagnostics.push({ file, key: "description", message: `The description is ${description.value.trim().length} characters long; the model is shown its first ${MAX_LISTED_DESCRIPTION}. Put the details in the skill's body.` });
  }
  const ownName = named ? displayName : dirName;
  const invokedAs = plugin ? `${plugin.name}:${ownName}` : ownName;
  if (displayName !== ownName) {
    diagnostics.push({ file, key: "name", message: `The skill's name "${displayName}" differs from its directory; it is invoked as ${invokedAs}, after its directory.` });
  }

  const body = frontmatter.body.trim();
  const skill: Skill = {
    name: invokedAs,
    displayName,
    description: description.value.trim(),
    scope,
    ...(plugin && { plugin: plugin.name }),
    path: file,
    baseDir,
    body: plugin ? withPluginVariables(body, plugin) : body,
    disableModelInvocation: optional(booleanField(data, "disable-model-invocation"), "disable-model-invocation") ?? false,
    userInvocable: optional(booleanField(data, "user-invocable"), "user-invocable") ?? true,
  };
  const allowedTools = optional(toolListField(data, "allowed-tools"), "allowed-tools");
  if (allowedTools) skill.allowedTools = allowedTools;
  const hint = optional(hintField(data, "argument-hint"), "argument-hint");
  if (hint) skill.argumentHint = hint;
  const names = argumentNamesField(data.arguments);
  if (names?.length) skill.argumentNames = names;
  const model = optional(textField(data, "model"), "model");
  if (model && model !== "inherit") skill.model = model;
  const context = optional(textField(data, "context"), "context")?.trim();
  const agent = optional(textField(data, "agent"), "agent")?.trim();
  if (context === "fork") skill.fork = { agent: agent || DEFAULT_FORK_AGENT };
  else if (context !== undefined && context !== "" && context !== "main") {
    diagnostics.push({ file, key: "context", message: `Ignored: context must be fork (to run the skill in a sub-agent), got "${context}"; the skill runs in the conversation.` });
  } else if (agent) {
    diagnostics.push({ file, key: "agent", message: `Ignored: agent chooses the sub-agent of a skill with context: fork, and this skill runs in the conversation.` });
  }
  const hooks = frontmatterHooks(data.hooks, file, "skill");
  diagnostics.push(...hooks.diagnostics);
  if (hooks.config) skill.hooks = hooks.config;
  return skill;

  /** An optional field with a bad value is ignored, with a diagnostic; the skill still loads. */
  function optional<T>(field: { value?: T; error?: string }, key: string): T | undefined {
    if (field.error) diagnostics.push({ file, key, message: `Ignored: ${field.error}.` });
    return field.value;
  }
}
