// `harness doctor`: what a run or a server here would use, checked in order, each ✓, ! or ✗ with a
// remedy. Every check reuses the code a run uses (its settings loader, model routing, fetch, MCP
// client, sandbox check, telemetry config and sender; the server's config and log settings): a
// rule lives in one place.
import { secretHiding, secretValuesOf } from "@harness/llm/hidden-secrets";
import type { CliIO } from "../cli.ts";
import type { DoctorCommand } from "./args.ts";
import { type Check, fail, reportJson, reportText } from "./check.ts";
import { backendCheck } from "./backend-check.ts";
import { doctorContext } from "./context.ts";
import { mcpChecks } from "./mcp-check.ts";
import { modelChecks } from "./model-check.ts";
import { nodeChecks } from "./node-check.ts";
import { ripgrepCheck, sandboxCheck } from "./sandbox-check.ts";
import { serverChecks } from "./server-check.ts";
import { serverLogChecks } from "./server-log-check.ts";
import { hooksCheck, memoryCheck, settingsChecks } from "./settings-check.ts";
import { telemetryChecks } from "./telemetry-check.ts";
import { statSync } from "node:fs";
import { resolve } from "node:path";

/** Exit status: 0 when nothing is ✗, 1 otherwise. */
export async function doctorCommand(command: DoctorCommand, io: CliIO): Promise<number> {
  const cwd = resolve(io.cwd, command.cwd ?? ".");
  if (!isDirectory(cwd)) {
    io.stderr.write(`harness: --cwd: ${cwd} is not a directory\n`);
    return 2;
  }
  const ctx = await doctorContext(command, io);
  const checks: Check[] = [...nodeChecks(), ...settingsChecks(ctx), ...(await guarded("model", () => modelChecks(ctx)))];
  checks.push(...(await guarded("memory", async () => [await memoryCheck(ctx)])));
  checks.push(...(await guarded("mcp", () => mcpChecks(ctx))));
  checks.push(hooksCheck(ctx));
  checks.push(...(await guarded("sandbox", async () => [await sandboxCheck(ctx)])));
  checks.push(await ripgrepCheck());
  checks.push(...(await guarded("backend", async () => [await backendCheck(ctx)])));
  checks.push(...(await guarded("telemetry", () => telemetryChecks(ctx))));
  checks.push(...(await guarded("server", () => serverChecks(ctx))));
  checks.push(...serverLogChecks(ctx));
  // Details quote servers' errors and commands: the secrets of the environment are hidden in them.
  const { hide } = secretHiding(secretValuesOf(ctx.env));
  const shown = checks.map((c) => ({ ...c, detail: hide(c.detail), ...(c.remedy && { remedy: hide(c.remedy) }) }));
  io.stdout.write(command.json ? reportJson(shown) : reportText(shown));
  return shown.some((c) => c.status === "fail") ? 1 : 0;
}

/** A check that throws is reported as failed, and the others still run. */
async function guarded(name: string, checks: () => Promise<Check[]>): Promise<Check[]> {
  try {
    return await checks();
  } catch (error) {
    return [fail(name, `the check itself failed: ${error instanceof Error ? error.message : String(error)}`, "report this with the output of harness doctor")];
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
