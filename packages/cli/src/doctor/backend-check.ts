// The agent backend a server's runs use (HARNESS_BACKEND): for claude-code, its binary, found as
// the backend finds it, and whether it runs.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { defaultBackendName } from "@harness/runner/backend-names";
import { findClaudeCodeExecutable } from "@harness/runner/claude-code-options";
import { type Check, fail, ok } from "./check.ts";
import type { DoctorContext } from "./context.ts";

const run = promisify(execFile);

export async function backendCheck(ctx: DoctorContext): Promise<Check> {
  const backend = defaultBackendName(ctx.env);
  if (!backend.ok) return fail("backend", backend.error, "set HARNESS_BACKEND to builtin or claude-code, or unset it");
  if (backend.name !== "claude-code") return ok("backend", `${backend.name} (HARNESS_BACKEND=claude-code would run Claude Code itself)`);
  const binary = findClaudeCodeExecutable();
  const remedy = `reinstall the project's dependencies (npm install) so that @anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch} is installed, or set HARNESS_BACKEND=builtin`;
  if (binary === undefined) return fail("backend", `claude-code, but its binary (@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}) is not installed`, remedy);
  try {
    const { stdout } = await run(binary, ["--version"], { timeout: 10_000, env: ctx.env });
    return ok("backend", `claude-code: ${binary} (${stdout.trim()})`);
  } catch (error) {
    return fail("backend", `claude-code, but ${binary} does not run: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`, remedy);
  }
}
