// The frontmatter of an agent file, which must have one (see ../frontmatter.ts for how it is read).
import { parseFrontmatter } from "../frontmatter.ts";

export type AgentFrontmatter = { ok: true; data: Record<string, unknown>; body: string } | { ok: false; message: string };

export function parseAgentFrontmatter(text: string): AgentFrontmatter {
  const front = parseFrontmatter(text);
  if (!front.ok) return { ok: false, message: front.error };
  if (!front.present) {
    if (/^\uFEFF?---[ \t]*\r?\n/.test(text)) return { ok: false, message: 'the frontmatter has no closing "---" line after its YAML keys' };
    return { ok: false, message: 'no frontmatter: the file must start with a "---" line, then YAML keys (name, description, …), then a closing "---" line' };
  }
  return { ok: true, data: front.data, body: front.body.trim() };
}
