// Reading the fields of SKILL.md and command files' frontmatter (../frontmatter.ts reads the block).

/** A text field: strings as they are, numbers and booleans as text; anything else is an error. */
export function textField(data: Record<string, unknown>, key: string): { value?: string; error?: string } {
  const value = data[key];
  if (value === undefined || value === null) return {};
  if (typeof value === "string") return { value };
  if (typeof value === "number" || typeof value === "boolean") return { value: String(value) };
  return { error: `${key} must be text` };
}

/** `argument-hint`: text, or a flow list as YAML reads the common `argument-hint: [message]`, which
 * stands for the text it was written as. */
export function hintField(data: Record<string, unknown>, key: string): { value?: string; error?: string } {
  const value = data[key];
  if (Array.isArray(value) && value.every((item) => ["string", "number", "boolean"].includes(typeof item))) return { value: `[${value.join(", ")}]` };
  return textField(data, key);
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
