// The settings files in effect, read and validated by the run's own loader, and what they
// configure that a run loads: memory files and hooks.
import { loadMemory } from "@harness/agent";
import { type Check, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

export function settingsChecks(ctx: DoctorContext): Check[] {
  const { loaded, flag } = ctx;
  const checks: Check[] = [];
  if (flag && "error" in flag) checks.push(fail("settings", flag.error, "mend the file or JSON given with --settings"));
  if (loaded.policyProblem !== undefined) checks.push(fail("settings", loaded.policyProblem, "mend the managed settings file, or ask whoever manages this machine"));
  const files = loaded.sources.map((source) => `${source.scope} ${source.path}`);
  for (const d of loaded.diagnostics) {
    const whole = d.key === undefined;
    const where = `${d.file}${whole ? "" : ` (${d.key})`}`;
    checks.push(warn("settings", `${where}: ${d.message}`, whole ? `mend ${d.file}: a run skips all of it` : `mend ${d.key} in ${d.file}: a run ignores it`));
  }
  if (!checks.length) checks.push(ok("settings", files.length ? files.join(", ") : "no settings files (a run uses the defaults)"));
  return checks;
}

export async function memoryCheck(ctx: DoctorContext): Promise<Check> {
  const memory = await loadMemory({ cwd: ctx.cwd, projectRoot: ctx.projectRoot, home: ctx.home, ...(ctx.loaded.settings.claudeMdExcludes && { excludes: ctx.loaded.settings.claudeMdExcludes }) });
  const bytes = memory.files.reduce((sum, file) => sum + Buffer.byteLength(file.content), 0);
  const detail = `${memory.files.length} file${memory.files.length === 1 ? "" : "s"}, ${kib(bytes)}`;
  const problem = memory.diagnostics[0];
  return problem ? warn("memory", `${detail}; ${problem.file}: ${problem.message}`, "mend the memory file named") : ok("memory", detail);
}

export function hooksCheck(ctx: DoctorContext): Check {
  const hooks = ctx.loaded.settings.hooks ?? {};
  const counts = Object.entries(hooks).map(([event, groups]) => [event, Array.isArray(groups) ? groups.reduce((n, g) => n + (Array.isArray(g?.hooks) ? g.hooks.length : 0), 0) : 0] as const).filter(([, n]) => n > 0);
  return ok("hooks", counts.length ? counts.map(([event, n]) => `${event} ${n}`).join(", ") : "none configured");
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`;
}
