// Helpers for this folder's tests.
import fs from "node:fs/promises";
import path from "node:path";
import { prepareToolCall } from "../loop/tool-input.ts";
import type { Tool, ToolOutput } from "../types.ts";
import type { ToolState } from "./state.ts";

/** Calls a tool the way the loop does (arguments validated first), with a tool state. */
export async function callWithState(
  tool: Tool,
  input: Record<string, unknown>,
  cwd: string,
  state: ToolState | undefined,
  signal = new AbortController().signal,
): Promise<ToolOutput> {
  const prepared = prepareToolCall(new Map([[tool.name, tool]]), tool.name, input);
  if (!prepared.ok) return { content: prepared.error, isError: true };
  return tool.execute(prepared.args, { cwd, signal, toolUseId: "toolu_test", ...(state && { state }) });
}

/** Writes files (path → content) under `root`, creating directories. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(root, file);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await fs.writeFile(full, content);
  }
}

/** Sets a file's modification time to `secondsAgo` before a fixed date, so that tests can order
 * files by age. */
export async function age(file: string, secondsAgo: number): Promise<void> {
  const when = new Date(Date.UTC(2024, 0, 1) - secondsAgo * 1000);
  await fs.utimes(file, when, when);
}
