// YAML frontmatter of Markdown files (skills, commands, agent files): a `---` fenced block at the
// very top. Read as Claude Code reads it: a block that is not valid YAML is tried once more with
// its one-line values that are not valid YAML on their own quoted, since values like
// `description: Use when: the user asks` or `argument-hint: [pr-number] [priority]` are common in
// shared files.
import { parseYaml } from "./yaml.ts";

export type Frontmatter =
  | { ok: true; data: Record<string, unknown>; body: string; present: boolean }
  | { ok: false; error: string; body: string };

const FENCE = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/** Splits `text` into frontmatter data and body. No frontmatter is fine (`present: false`); an
 * opening fence without a closing one is too (the whole text is the body). */
export function parseFrontmatter(text: string): Frontmatter {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = FENCE.exec(source);
  if (!match) return { ok: true, data: {}, body: source, present: false };
  const body = source.slice(match[0].length);
  const yaml = match[1] ?? "";
  const first = tryYaml(yaml);
  const parsed = first.ok ? first : tryYaml(quotePlainValues(yaml));
  if (!parsed.ok) return { ok: false, error: `invalid YAML in the frontmatter: ${first.ok ? parsed.error : first.error}`, body };
  if (parsed.value === null || parsed.value === undefined) return { ok: true, data: {}, body, present: true };
  if (typeof parsed.value !== "object" || Array.isArray(parsed.value)) {
    return { ok: false, error: "the frontmatter must be a YAML mapping of keys to values (`key: value` lines)", body };
  }
  return { ok: true, data: parsed.value as Record<string, unknown>, body, present: true };
}

function tryYaml(yaml: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseYaml(yaml) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? (error.message.split("\n")[0] ?? "").replace(/:$/, "") : String(error) };
  }
}

/** `key: some text: more` → `key: "some text: more"` for top-level keys whose one-line value is not
 * valid YAML by itself; leaves quoted and block values alone, and valid ones (numbers, booleans,
 * flow lists such as `[Read, Grep]`). */
function quotePlainValues(yaml: string): string {
  return yaml
    .split(/\r?\n/)
    .map((line) => {
      const m = /^([A-Za-z_][\w-]*):[ \t]+(.*\S)[ \t]*$/.exec(line);
      if (!m || /^["'|>]/.test(m[2]!) || opensFlow(m[2]!) || tryYaml(line).ok) return line;
      return `${m[1]}: ${JSON.stringify(m[2])}`;
    })
    .join("\n");
}

/** A flow list or mapping that goes on to the next lines (`tools: [Read,`). */
function opensFlow(value: string): boolean {
  const opened = value.match(/[[{]/g)?.length ?? 0;
  const closed = value.match(/[\]}]/g)?.length ?? 0;
  return /^[[{]/.test(value) && opened > closed;
}
