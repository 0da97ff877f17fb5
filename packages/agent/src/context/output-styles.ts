// Output styles, as Claude Code has them: the settings' `outputStyle` names one, and the main
// agent's system prompt changes with it (system-prompt.ts styledSystemPrompt). Besides the default
// there are three built-in styles; the user's `~/.claude/output-styles/*.md` and the project's
// `.claude/output-styles/*.md` add their own (the project's win on a name clash). A file's
// frontmatter may give `name` (default: the file's name without .md), `description` and
// `keep-coding-instructions` (default false: a custom style is for work other than coding). Names
// match without regard to case. Plugins' styles (their `output-styles/`, or the files and folders
// their manifest gives) are named `<plugin>:<name>`, as their other components are.
import path from "node:path";
import { isMissingError, readConfigDir, readConfigText, statConfig } from "../config/files.ts";
import type { Plugin } from "../plugins/types.ts";
import { parseFrontmatter } from "../frontmatter.ts";
import { booleanField, textField } from "../skills/frontmatter-fields.ts";
import { userConfigDir } from "../config/user-config-dir.ts";

export type OutputStyle = { name: string; description?: string; prompt: string; keepCodingInstructions: boolean };

export type OutputStyleLoad = { style?: OutputStyle; diagnostics: { file: string; key?: string; message: string }[] };

const BUILT_IN: readonly OutputStyle[] = [
  {
    name: "Explanatory",
    description: "Explains its implementation choices and the codebase's patterns as it works",
    keepCodingInstructions: true,
    prompt: `Besides doing the task, help the user understand the code. Before and after you write code, give a short insight about the choices you made and the patterns of this codebase, set apart like this:
"★ Insight ─────────────────────────────────────
- two or three specific points
─────────────────────────────────────────────────"
Keep insights about this code and this task, not general programming advice. You may be longer than usual to make room for them.`,
  },
  {
    name: "Learning",
    description: "Works with the user, who writes small meaningful pieces of code themselves",
    keepCodingInstructions: true,
    prompt: `Work with the user so that they learn by doing. Share short insights about the choices you make and the patterns of this codebase, as in the Explanatory style. When the task has a small piece of meaningful code (a design decision, business logic, 2 to 10 lines), do not write it yourself: put a TODO(human) comment where it goes, say what it should do and which trade-offs to weigh, then stop and wait for the user to write it. Ask for one such piece at a time, and do the routine parts yourself.`,
  },
  {
    name: "Proactive",
    description: "Acts at once on reasonable assumptions instead of stopping to ask",
    keepCodingInstructions: true,
    prompt: `Act rather than ask. For routine decisions make a reasonable assumption, go ahead and say what you assumed. Prefer doing the work to proposing a plan. Stop to ask only when a choice would be costly to undo or the request is truly ambiguous.`,
  },
];

/** The style the settings name, or none for the default (no name, or "default"). A name that
 * matches no style is a diagnostic, and the default is used. */
export async function loadOutputStyle(name: string | undefined, where: { home: string; projectRoot: string; plugins?: readonly Plugin[] }): Promise<OutputStyleLoad> {
  const diagnostics: OutputStyleLoad["diagnostics"] = [];
  if (name === undefined || name.trim() === "" || name.trim().toLowerCase() === "default") return { diagnostics };
  const wanted = name.trim().toLowerCase();
  const builtIn = BUILT_IN.find((style) => style.name.toLowerCase() === wanted);
  if (builtIn) return { style: builtIn, diagnostics };
  const dirs = [path.join(where.projectRoot, ".claude", "output-styles"), path.join(userConfigDir(where.home), "output-styles")];
  const available = [...BUILT_IN.map((style) => style.name)];
  const found = async function* () {
    for (const dir of dirs) yield* await stylesIn(dir, diagnostics);
    for (const plugin of where.plugins ?? []) {
      for (const at of plugin.outputStylePaths) {
        const isFile = await statConfig(at).then((stats) => stats.isFile(), () => false);
        const styles = isFile ? [await readStyle(at, diagnostics)].filter((style): style is OutputStyle => style !== undefined) : await stylesIn(at, diagnostics);
        yield* styles.map((style) => ({ ...style, name: `${plugin.name}:${style.name}` }));
      }
    }
  };
  for await (const style of found()) {
    if (style.name.toLowerCase() === wanted) return { style, diagnostics };
    available.push(style.name);
  }
  diagnostics.push({
    file: "settings",
    key: "outputStyle",
    message: `no output style is named "${name}" (there are: Default, ${available.join(", ")}); the default style is used`,
  });
  return { diagnostics };
}

async function stylesIn(dir: string, diagnostics: OutputStyleLoad["diagnostics"]): Promise<OutputStyle[]> {
  let entries;
  try {
    entries = await readConfigDir(dir);
  } catch (error) {
    if (!isMissingError(error)) diagnostics.push({ file: dir, message: `cannot read the output styles directory: ${(error as Error).message}` });
    return [];
  }
  const files = entries.filter((entry) => entry.name.endsWith(".md") && (entry.isFile() || entry.isSymbolicLink())).map((entry) => entry.name).sort();
  const styles: OutputStyle[] = [];
  for (const file of files) {
    const style = await readStyle(path.join(dir, file), diagnostics);
    if (style) styles.push(style);
  }
  return styles;
}

async function readStyle(file: string, diagnostics: OutputStyleLoad["diagnostics"]): Promise<OutputStyle | undefined> {
  let text: string;
  try {
    text = await readConfigText(file);
  } catch (error) {
    diagnostics.push({ file, message: `cannot read the output style: ${(error as Error).message}` });
    return undefined;
  }
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) {
    diagnostics.push({ file, message: `${parsed.error}; this output style is not used` });
    return undefined;
  }
  const name = textField(parsed.data, "name");
  const description = textField(parsed.data, "description");
  const keep = booleanField(parsed.data, "keep-coding-instructions");
  for (const [key, field] of [["name", name], ["description", description], ["keep-coding-instructions", keep]] as const) {
    if (field.error) diagnostics.push({ file, key, message: `${field.error}; it is ignored` });
  }
  if (parsed.body.trim() === "") {
    diagnostics.push({ file, message: "the output style has no text below its frontmatter; it is not used" });
    return undefined;
  }
  return {
    name: name.value?.trim() || path.basename(file, ".md"),
    ...(description.value !== undefined && { description: description.value }),
    prompt: parsed.body,
    keepCodingInstructions: keep.value === true,
  };
}
