// A plugin's `.claude-plugin/plugin.json`, as Claude Code reads it: `name` is the only required
// field; unknown top-level fields are ignored (a manifest may double as another tool's); a known
// field of the wrong type, or a component path that is not relative (`./…`) or leads out of the
// plugin, makes the manifest invalid, and the plugin is not loaded.
import path from "node:path";
import { z } from "zod";

/** The component paths of a manifest, resolved against the plugin's root. */
export type PluginManifest = {
  name: string;
  version?: string;
  description?: string;
  /** Replace the default `commands/`, `agents/` and `output-styles/` when given. */
  commands?: string[];
  agents?: string[];
  outputStyles?: string[];
  /** Scanned besides the default `skills/`. */
  skills?: string[];
  /** Files of hooks (besides `hooks/hooks.json`), or the hooks themselves. */
  hooks?: { files: string[]; inline: unknown[] };
  /** Files of MCP servers (besides `.mcp.json`), or the servers themselves. */
  mcpServers?: { files: string[]; inline: unknown[] };
  /** Files of language servers (besides `.lsp.json`), or the servers themselves. */
  lspServers?: { files: string[]; inline: unknown[] };
};

export type ParsedManifest = { ok: true; manifest: PluginManifest } | { ok: false; message: string };

/** What the plugin is called: the namespace of its commands (`/name:command`), agents and MCP
 * servers, so it must hold no whitespace and no ":" (which separates the namespace). */
const nameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "name: required (every plugin.json needs a name)" : "name: must be a string") })
  .trim()
  .min(1, "name: must not be empty")
  .regex(/^[^\s:/\\]+$/, "name: must be one word, such as my-plugin (no spaces, \":\" or slashes)");
const text = (key: string) => z.string({ error: `${key}: must be a string` }).optional();
const paths = (key: string) => z.union([z.string(), z.array(z.string())], { error: `${key}: must be a path ("./dir") or a list of paths` }).optional();
const pathsOrInline = (key: string) =>
  z.union([z.string(), z.array(z.union([z.string(), z.looseObject({})])), z.looseObject({})], { error: `${key}: must be a path ("./file.json"), a list of them, or an object` }).optional();

const manifestSchema = z.looseObject({
  name: nameSchema,
  version: text("version"),
  description: text("description"),
  author: z.looseObject({ name: z.string({ error: "author.name: must be a string" }) }, { error: "author: must be an object with a name" }).optional(),
  keywords: z.array(z.string(), { error: "keywords: must be a list of strings" }).optional(),
  commands: paths("commands"),
  agents: paths("agents"),
  skills: paths("skills"),
  outputStyles: paths("outputStyles"),
  hooks: pathsOrInline("hooks"),
  mcpServers: pathsOrInline("mcpServers"),
  lspServers: pathsOrInline("lspServers"),
});

/** Validates the parsed JSON of `plugin.json` of the plugin at `root`. */
export function parseManifest(value: unknown, root: string): ParsedManifest {
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message = typeof value !== "object" || value === null || Array.isArray(value) ? "must contain a JSON object" : (issue?.message ?? "is invalid");
    return { ok: false, message };
  }
  const data = parsed.data;
  const manifest: PluginManifest = { name: data.name };
  if (data.version !== undefined) manifest.version = data.version;
  if (data.description !== undefined) manifest.description = data.description;
  try {
    for (const key of ["commands", "agents", "skills", "outputStyles"] as const) {
      const value = data[key];
      if (value !== undefined) manifest[key] = (typeof value === "string" ? [value] : value).map((p) => inside(root, p, key));
    }
    for (const key of ["hooks", "mcpServers", "lspServers"] as const) {
      const value = data[key];
      if (value !== undefined) manifest[key] = splitInline(value, root, key);
    }
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  return { ok: true, manifest };
}

function splitInline(value: string | (string | Record<string, unknown>)[] | Record<string, unknown>, root: string, key: string): { files: string[]; inline: unknown[] } {
  const items = Array.isArray(value) ? value : [value];
  const files: string[] = [];
  const inline: unknown[] = [];
  for (const item of items) {
    if (typeof item === "string") files.push(inside(root, item, key));
    else inline.push(item);
  }
  return { files, inline };
}

/** `relative` resolved against `root`; throws when it is not `./…` or leads out of the plugin
 * (an installed plugin is a copy of its directory alone, so nothing outside it would be there). */
function inside(root: string, relative: string, key: string): string {
  if (!relative.startsWith("./")) throw new Error(`${key}: "${relative}" must be a path relative to the plugin's root, starting with "./"`);
  const resolved = path.resolve(root, relative);
  const back = path.relative(root, resolved);
  if (back.startsWith("..") || path.isAbsolute(back)) throw new Error(`${key}: "${relative}" leads out of the plugin's directory`);
  return resolved;
}
