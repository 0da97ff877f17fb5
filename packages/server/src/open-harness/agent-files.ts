// The text of a sub-agent's file (.claude/agents/<name>.md), as Claude Code's /agents writes it:
// YAML frontmatter (name, description, and what else it sets), then the system prompt. Made from
// fields, or an existing file's frontmatter changed key by key (its other keys and comments kept).
// Whatever is written is first read back by the runs' own loader (loadAgentDefinitions), in a
// scratch directory: a file the runs would skip or read otherwise is never written.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { loadAgentDefinitions } from "@harness/agent/load-agents";
import { ApiError } from "./errors.ts";

/** The longest name taken: it names a file (and a skill, a folder) and is typed by people. */
export const NAME_MAX = 64;

/** A name of an agent or a skill that names its own file or folder: a single word of letters,
 * digits, "-", "_" and ".", never a path ("/", "\\", ".."), never hidden (a leading "."), never a
 * plugin's (`plugin:name`). */
export const EntryName = z
  .string({ error: "must be a string" })
  .min(1, "must not be empty")
  .max(NAME_MAX, `must be at most ${NAME_MAX} characters`)
  .refine((name) => !/[/\\]/.test(name), "must not contain a path separator: it names one file")
  .refine((name) => !name.includes(".."), 'must not contain ".."')
  .refine((name) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name), 'must be one word of letters, digits, "-", "_" and ".", starting with a letter or digit (as code-reviewer)');

/** What a file is made from; the system prompt is its body. */
export type AgentFields = {
  name: string;
  description: string;
  systemPrompt: string;
  model?: string;
  tools?: string[];
  skills?: string[];
  mcpServers?: string[];
  /** What limits an agent made into a file of its own (a copy of another): kept with it. */
  disallowedTools?: string[];
  permissionMode?: string;
  maxTurns?: number;
};

/** A YAML scalar for `value`: as it is when YAML reads it back as that text, else double-quoted
 * (JSON's escapes are YAML's). */
export function yamlScalar(value: string): string {
  const plain = /^[A-Za-z][A-Za-z0-9 _.,()/'!?-]*$/.test(value) && !/ $/.test(value) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

const yamlList = (values: string[]) => `[${values.map((value) => JSON.stringify(value)).join(", ")}]`;

/** The lines `key: value` of the fields' frontmatter, in Claude Code's order. */
function frontmatterLines(fields: Partial<AgentFields>): [key: string, value: string][] {
  const lines: [string, string][] = [];
  if (fields.name !== undefined) lines.push(["name", yamlScalar(fields.name)]);
  if (fields.description !== undefined) lines.push(["description", yamlScalar(fields.description)]);
  if (fields.tools !== undefined) lines.push(["tools", yamlList(fields.tools)]);
  if (fields.disallowedTools !== undefined) lines.push(["disallowedTools", yamlList(fields.disallowedTools)]);
  if (fields.model !== undefined) lines.push(["model", yamlScalar(fields.model)]);
  if (fields.permissionMode !== undefined) lines.push(["permissionMode", yamlScalar(fields.permissionMode)]);
  if (fields.maxTurns !== undefined) lines.push(["maxTurns", String(fields.maxTurns)]);
  if (fields.skills !== undefined) lines.push(["skills", yamlList(fields.skills)]);
  if (fields.mcpServers !== undefined) lines.push(["mcpServers", yamlList(fields.mcpServers)]);
  return lines;
}

/** A new agent file of `fields`. */
export function agentFileText(fields: AgentFields): string {
  const front = frontmatterLines(fields).map(([key, value]) => `${key}: ${value}`);
  return `---\n${front.join("\n")}\n---\n\n${fields.systemPrompt.trim()}\n`;
}

const FENCE = /^(\uFEFF?---[ \t]*\r?\n)([\s\S]*?\r?\n)?(---[ \t]*(?:\r?\n|$))/;

/** `text` (an agent file that loads) with the frontmatter keys of `changes` set (each top-level
 * `key:` line, with the lines of its value below it, replaced; a key not there added at the end),
 * and its body replaced by `systemPrompt` when given. Other keys, comments and order stay. Text
 * without frontmatter: 409 for a file there, 400 naming `field` for one a request gives. */
export function changedAgentText(text: string, changes: Partial<AgentFields>, field?: string): string {
  const fence = FENCE.exec(text);
  if (!fence && field !== undefined) throw new ApiError(400, "invalid_request", `${field}: the agent's file has no frontmatter to set its name in: it starts with a "---" line, then its YAML keys, then a closing "---" line`);
  if (!fence) throw new ApiError(409, "conflict", "the agent's file has no frontmatter to change: edit it as a file");
  let lines = (fence[2] ?? "").replace(/\r?\n$/, "").split(/\r?\n/);
  if (lines.length === 1 && lines[0] === "") lines = [];
  for (const [key, value] of frontmatterLines(changes)) {
    const at = lines.findIndex((line) => new RegExp(`^${key}[ \\t]*:`).test(line));
    if (at < 0) {
      lines.push(`${key}: ${value}`);
      continue;
    }
    // The value's own lines: indented, list items at the margin, or blank lines among them.
    let end = at + 1;
    while (end < lines.length && /^([ \t]|- |-$|[ \t]*$)/.test(lines[end]!)) end++;
    while (end > at + 1 && lines[end - 1]!.trim() === "") end--;
    lines.splice(at, end - at, `${key}: ${value}`);
  }
  const body = changes.systemPrompt !== undefined ? `\n${changes.systemPrompt.trim()}\n` : text.slice(fence[0].length);
  return `${fence[1]}${lines.join("\n")}\n${fence[3]!.replace(/\r?\n?$/, "\n")}${body}`;
}

/** What the runs' loader reads in `text` as the file `<fileName>` of a project's .claude/agents:
 * the agent, or 400 naming what it finds wrong (`field` names what was given: the body, a file). */
export async function agentAsLoaded(text: string, fileName: string, field = "body") {
  const scratch = await mkdtemp(join(tmpdir(), "harness-agent-"));
  try {
    await mkdir(join(scratch, "project", ".claude", "agents"), { recursive: true });
    await writeFile(join(scratch, "project", ".claude", "agents", fileName), text);
    const { agents, diagnostics } = await loadAgentDefinitions({ home: join(scratch, "home"), projectRoot: join(scratch, "project"), includeBuiltins: false });
    const agent = agents[0];
    // Warnings of a file that loads (a hook left out) are the file's own: it is taken as the runs take it.
    if (!agent) {
      const why = diagnostics.map((d) => d.message).join("; ") || "no agent was found in it";
      throw new ApiError(400, "invalid_request", `${field}: the agent file would not load as written: ${why}`);
    }
    return agent;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
