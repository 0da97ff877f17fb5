// The MCP servers a run here would have, each started and checked as `harness mcp list` does.
import { checkServers } from "../mcp/list.ts";
import { mcpPlace } from "../mcp/files.ts";
import { type Check, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

export async function mcpChecks(ctx: DoctorContext): Promise<Check[]> {
  const io = { ...ctx.io, cwd: ctx.cwd };
  const problems: string[] = [];
  const { rows, hide } = await checkServers(await mcpPlace(ctx.cwd, io.env), io, (message) => problems.push(message));
  const checks: Check[] = problems.map((problem) => warn("mcp", problem, "mend the entry named: a run leaves it out"));
  if (!rows.length) return [...checks, ok("mcp", "no servers configured")];
  for (const row of rows) {
    const check = `mcp ${row.name}`;
    const detail = hide(`${row.target} (${row.scope}) - ${row.result.replace(/^[✓!✗] /, "")}`);
    if (row.result.startsWith("✓")) checks.push(ok(check, detail));
    else if (row.result.startsWith("✗")) checks.push(fail(check, detail, `fix the server's command or address, then: harness mcp get ${row.name}; harness run --debug mcp shows all it said`));
    else checks.push(warn(check, detail, row.result.startsWith("!") ? `harness mcp login ${row.name}` : "a run does not start it"));
  }
  return checks;
}
