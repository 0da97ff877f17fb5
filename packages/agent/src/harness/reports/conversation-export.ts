// /export [file]: the conversation as plain text, laid out as Claude Code's export lays it out
// ("> " before the user's prompts, "⏺" before the assistant's text and tool calls, "⎿" before a
// call's output), written to the file or, without one, given back as the reply.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import type { ContentBlock, ModelMessage } from "@harness/llm";

/** The conversation as text. Context the harness attached to a prompt (reminders, hook context,
 * the bash-mode caveat: text that starts with "<") is left out, as are images and thinking. */
export function conversationText(history: readonly ModelMessage[]): string {
  const parts: string[] = [];
  for (const message of history) {
    const blocks: ContentBlock[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    for (const block of blocks) {
      const part = message.role === "user" ? userPart(block) : assistantPart(block);
      if (!part) continue;
      // A call's output goes right under the call.
      if (block.type === "tool_result" && parts.length > 0) parts[parts.length - 1] += `\n${part}`;
      else parts.push(part);
    }
  }
  return parts.length > 0 ? `${parts.join("\n\n")}\n` : "";
}

/** Writes the conversation to `file` (relative to `cwd`), making its directory; the answer says
 * where it went or why it could not. Only inside the working directories (`cwd` and `more`): the
 * command is the user's, but it passes no permission check, and under a server the user is not
 * the machine's. */
export async function exportConversation(history: readonly ModelMessage[], file: string, cwd: string, more: readonly string[] = []): Promise<string> {
  const path = resolve(cwd, file);
  if (![cwd, ...more].some((dir) => path.startsWith(`${dir.endsWith(sep) ? dir : dir + sep}`))) return `Cannot export the conversation to ${path}: it is outside the working directories (${[cwd, ...more].join(", ")})`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, conversationText(history));
  } catch (error) {
    return `Cannot export the conversation to ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  return `Conversation exported to ${path}`;
}

function userPart(block: ContentBlock): string | undefined {
  if (block.type === "text") return block.text.trimStart().startsWith("<") || !block.text.trim() ? undefined : indent("> ", block.text.trim());
  if (block.type === "tool_result") {
    const output = typeof block.content === "string" ? block.content : block.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
    return indent("  ⎿  ", output.trimEnd() || "(no output)");
  }
  return undefined;
}

function assistantPart(block: ContentBlock): string | undefined {
  if (block.type === "text") return block.text.trim() ? indent("⏺ ", block.text.trim()) : undefined;
  if (block.type === "tool_use" || block.type === "server_tool_use") return `⏺ ${block.name}(${callSummary(block.input)})`;
  return undefined;
}

/** The argument that says what a call does (a command, a path, a pattern…), else its input as JSON. */
function callSummary(input: Record<string, unknown>): string {
  for (const key of ["command", "file_path", "path", "pattern", "url", "query", "description", "prompt"]) {
    const value = input[key];
    if (typeof value === "string") return value.split("\n")[0] as string;
  }
  return JSON.stringify(input);
}

/** `text` with `lead` before its first line and as many spaces before the others. */
function indent(lead: string, text: string): string {
  const pad = " ".repeat(lead.length);
  return text
    .split("\n")
    .map((line, i) => (i === 0 ? lead : line ? pad : "") + line)
    .join("\n");
}
