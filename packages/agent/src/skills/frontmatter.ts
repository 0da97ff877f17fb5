// YAML frontmatter of SKILL.md and command files: a `---` fenced block at the very top.
import { parseYaml as parse } from "../yaml.ts";

export type Frontmatter =
  | { ok: true; data: Record<string, unknown>; body: string; present: boolean }
  | { ok: false; error: string; body: string };

const BLOCK = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/** Splits `text` into frontmatter data and body. No frontmatter is fine (`present: false`). A block
 * that is not valid YAML is retried once with plain `key: value` lines quoted, since descriptions
 * like `description: Use when: the user asks` are common in the wild and Claude Code accepts them. */
export function parseFrontmatter(text: string): Frontmatter {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = BLOCK.exec(source);
  if (!match) return { ok: true, data: {}, body: source, present: false };
  const body = source.slice(match[0].length);
  const yaml = match[1] ?? "";
  let data: unknown;
  try {
    data = parse(yaml);
  } catch (error) {
    try {
      data = parse(quotePlainValues(yaml));
    } catch {
      return { ok: false, error: `invalid YAML frontmatter: ${firstLine(error)}`, body };
    }
  }
  if (data === null || data === undefined) return { ok: true, data: {}, body, present: true };
  if (typeof data !== "object" || Array.isArray(data)) return { ok: false, error: "the frontmatter must be a list of `key: value` lines", body };
  return { ok: true, data: data as Record<string, unknown>, body, present: true };
}

function quotePlainValues(yaml: string): string {
  return yaml
    .split(/\r?\n/)
    .map((line) => {
      const match = /^([A-Za-z_][\w-]*):[ \t]+(.+)$/.exec(line);
      if (!match || /^["'[{|>&*!#]/.test(match[2]!)) return line;
      return `${match[1]}: ${JSON.stringify(match[2]!.trimEnd())}`;
    })
    .join("\n");
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}

/** A text field: strings as they are, numbers and booleans as text; anything else is an error. */
export function textField(data: Record<string, unknown>, key: string): { value?: string; error?: string } {
  const value = data[key];
  if (value === undefined || value === null) return {};
  if (typeof value === "string") return { value };
  if (typeof value === "number" || typeof value === "boolean") return { value: String(value) };
  return { error: `${key} must be text` };
}

/** `allowed-tools`: a YAML list, or one string of names separated by commas (Claude Code) or spaces
 * (the Agent Skills format). Separators inside parentheses belong to the rule: `Bash(git add:*)`. */
export function toolListField(data: Record<string, unknown>, key: string): { value?: string[]; error?: string } {
  const value = data[key];
  if (value === undefined || value === null) return {};
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item === "string")) return { value: value.map((item) => item.trim()).filter(Boolean) };
    return { error: `${key} must be a list of tool names` };
  }
  if (typeof value !== "string") return { error: `${key} must be a list of tool names` };
  const separator = topLevel(value).includes(",") ? "," : " ";
  return { value: splitTopLevel(value, separator) };
}

/** `value` with everything inside parentheses replaced by "_", so separators there do not count. */
function topLevel(value: string): string {
  let depth = 0;
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const char = value[i] as string;
    if (char === "(") depth++;
    out += depth > 0 ? "_" : char;
    if (char === ")" && depth > 0) depth--;
  }
  return out;
}

function splitTopLevel(value: string, separator: string): string[] {
  const parts: string[] = [];
  const shape = topLevel(value);
  let start = 0;
  for (let i = 0; i <= value.length; i++) {
    if (i === value.length || shape[i] === separator || (separator === " " && /\s/.test(shape[i] as string))) {
      const part = value.slice(start, i).trim();
      if (part) parts.push(part);
      start = i + 1;
    }
  }
  return parts;
}

/** A boolean field; "true"/"false" strings count too. */
export function booleanField(data: Record<string, unknown>, key: string): { value?: boolean; error?: string } {
  const value = data[key];
  if (value === undefined || value === null) return {};
  if (typeof value === "boolean") return { value };
  if (value === "true" || value === "false") return { value: value === "true" };
  return { error: `${key} must be true or false` };
}
