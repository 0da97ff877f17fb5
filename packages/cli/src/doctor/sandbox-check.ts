// The sandbox (when the settings turn it on: the sandbox's own availability check), and ripgrep.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { sandboxUnavailable } from "@harness/agent";
import { findRipgrep } from "@harness/agent/ripgrep";
import { type Check, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

const run = promisify(execFile);

export async function sandboxCheck(ctx: DoctorContext): Promise<Check> {
  if (ctx.loaded.settings.sandbox?.enabled !== true) return ok("sandbox", "off (the settings' sandbox.enabled is not true)");
  const problem = await sandboxUnavailable(ctx.env);
  return problem === undefined ? ok("sandbox", "on: bubblewrap and socat found, a namespace can be made") : fail("sandbox", `on, but ${problem}`, "install what is missing, or set sandbox.enabled to false in the settings");
}

export async function ripgrepCheck(): Promise<Check> {
  const rg = await findRipgrep();
  if (rg === undefined) return warn("ripgrep", "not found (Grep and Glob fall back to a slower search)", "reinstall the project's dependencies (npm install)");
  try {
    const { stdout } = await run(rg, ["--version"], { timeout: 5_000 });
    return ok("ripgrep", `${stdout.split("\n")[0]} (${rg})`);
  } catch (error) {
    return warn("ripgrep", `${rg} does not run: ${error instanceof Error ? error.message : String(error)}`, "reinstall the project's dependencies (npm install)");
  }
}
