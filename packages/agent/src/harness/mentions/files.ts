// The files a prompt names with `@path` ("Review @src/app.ts"), the user's own or a slash command's
// or skill's text, read as it is sent and put after it, as Claude Code attaches them. They are read
// with the Read tool,
// through the same gate as the model's calls (deny rules, the working directories, approval where
// someone can give it), and the user sees them as tool calls. A mention that names no file is text.
import { statSync } from "node:fs";
import path from "node:path";
import { findImports } from "../../context/markdown-imports.ts";
import { resolveToolPath } from "../../permissions/paths.ts";
import { runCommandCalls } from "../commands/calls.ts";
import { attached, type ExpandedText } from "./expanded-text.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** At most this many files are read for one command. */
const MAX_FILES = 20;

export async function attachMentionedFiles(ctx: RunContext, state: RunState, text: string): Promise<ExpandedText> {
  const { cwd, home } = ctx.setup;
  const files: { written: string; file: string }[] = [];
  for (const written of findImports(text)) {
    const file = resolveToolPath(written, cwd, home);
    if (files.some((f) => f.file === file) || !isFile(file)) continue;
    files.push({ written, file });
    if (files.length === MAX_FILES) break;
  }
  if (files.length === 0) return { text, images: [] };
  const results = await runCommandCalls(
    ctx,
    state,
    files.map(({ file }) => ({ name: "Read", input: { file_path: file } })),
  );
  return attached(
    text,
    results.map((result, i) => {
      const { written, file } = files[i]!;
      return { ...result, mention: `@${written}`, shown: path.relative(cwd, file) || written };
    }),
  );
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
