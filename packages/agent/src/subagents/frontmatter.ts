// YAML frontmatter of Markdown files (`---` fenced at the top), read the way Claude Code reads
// agent files: a one-line value with ": " in it (a description with "Examples: Context: …", common in
// shared agent files) is taken as plain text rather than rejected.
import { parseYaml as parse } from "../yaml.ts";

export type Frontmatter =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; message: string };

const FENCE = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

export function parseFrontmatter(text: string): Frontmatter {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const match = FENCE.exec(source);
  if (!match) {
    if (/^---[ \t]*\r?\n/.test(source)) return { ok: false, message: 'the frontmatter has no closing "---" line after its YAML keys' };
    return { ok: false, message: 'no frontmatter: the file must start with a "---" line, then YAML keys (name, description, …), then a closing "---" line' };
  }
  const yaml = match[1] ?? "";
  const body = source.slice(match[0].length).trim();
  const first = parseYaml(yaml);
  const parsed = first.ok ? first : parseYaml(quotePlainValues(yaml));
  if (!parsed.ok) return { ok: false, message: `invalid YAML in the frontmatter: ${first.ok ? parsed.message : first.message}` };
  if (parsed.value === null || parsed.value === undefined) return { ok: true, data: {}, body };
  if (typeof parsed.value !== "object" || Array.isArray(parsed.value)) {
    return { ok: false, message: "the frontmatter must be a YAML mapping of keys to values" };
  }
  return { ok: true, data: parsed.value as Record<string, unknown>, body };
}

function parseYaml(yaml: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: parse(yaml) };
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0].replace(/:$/, "") : String(error);
    return { ok: false, message };
  }
}

/** `key: some text: more` → `key: "some text: more"` for top-level keys whose value is a plain
 * one-line scalar; leaves quoted, block and flow values alone. */
function quotePlainValues(yaml: string): string {
  return yaml
    .split(/\r?\n/)
    .map((line) => {
      const m = /^([A-Za-z_][\w-]*):[ \t]+(.*\S)[ \t]*$/.exec(line);
      if (!m || /^["'|>[{&*!#]/.test(m[2]) || /^(-?\d+(\.\d+)?|true|false|null|~)$/.test(m[2])) return line;
      return `${m[1]}: ${JSON.stringify(m[2])}`;
    })
    .join("\n");
}
