// The files a slash command's or skill's text names with `@path`, read as it expands and put after
// its prompt, as Claude Code includes them ("Review @src/app.ts"). They are read with the Read tool,
// through the same gate as the model's calls (deny rules, the working directories, approval where
// someone can give it), and the user sees them as tool calls. A mention that names no file is text.
import { statSync } from "node:fs";
import path from "node:path";
import type { ToolUseBlock } from "@harness/llm";
import { findImports } from "../context/markdown-imports.ts";
import { executeToolCalls } from "../execute-tool-calls.ts";
import { resolveToolPath } from "../permissions/paths.ts";
import type { RunContext } from "./run-context.ts";
import { toolRunFor } from "./run-context.ts";
import type { RunState } from "./run-state.ts";

/** At most this many files are read for one command. */
const MAX_FILES = 20;

export async function attachMentionedFiles(ctx: RunContext, state: RunState, text: string): Promise<string> {
  const { cwd, home } = ctx.setup;
  const files: { written: string; file: string }[] = [];
  for (const written of findImports(text)) {
    const file = resolveToolPath(written, cwd, home);
    if (files.some((f) => f.file === file) || !isFile(file)) continue;
    files.push({ written, file });
    if (files.length === MAX_FILES) break;
  }
  if (files.length === 0) return text;
  const stamp = Date.now().toString(36);
  const calls: ToolUseBlock[] = files.map(({ file }, i) => ({ type: "tool_use", id: `command_file_${stamp}_${i}`, name: "Read", input: { file_path: file } }));
  for (const call of calls) {
    state.started.add(call.id);
    state.emit({ type: "tool.started", toolName: call.name, toolUseId: call.id, input: call.input });
  }
  const results = await executeToolCalls(calls, toolRunFor(ctx, state));
  const parts = results.map((result, i) => {
    const { written, file } = files[i]!;
    const content = typeof result.content === "string" ? result.content : result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    const shown = path.relative(cwd, file) || written;
    return result.is_error ? `(@${written} was not read: ${content})` : `Contents of ${shown}:\n${content}`;
  });
  return `${text}\n\n${parts.join("\n\n")}`;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
