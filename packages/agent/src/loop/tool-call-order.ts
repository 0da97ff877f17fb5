// Which calls of one assistant reply must wait for which. The calls of a reply run at the same
// time, except where one could see or undo what an earlier one does: a Read then an Edit of the
// same file, a Write then a Bash that runs what it wrote, an Edit then a command that builds it.
// Such a call starts once the earlier calls it conflicts with have finished, so that the reply
// has the effect of its calls in the order the model wrote them. Commands (Bash) and tools whose
// effects are not known (Task, MCP tools) do not wait for one another: the model sent them
// together, and they run together.
import path from "node:path";
import { commandUnits } from "../permissions/bash-units.ts";
import type { Tool } from "../types.ts";

type Paths = "all" | ReadonlySet<string>;
/** What a call may read and write; `together`: a command, or a tool whose effects are not known,
 * which does not wait for others of its kind. */
export type CallAccess = { reads: Paths; writes: Paths; together: boolean };

const NONE: ReadonlySet<string> = new Set();
const UNKNOWN: CallAccess = { reads: "all", writes: "all", together: true };
const READS_ANYTHING: CallAccess = { reads: "all", writes: NONE, together: false };
const COMMAND_THAT_READS: CallAccess = { reads: "all", writes: NONE, together: true };

/** What a valid call of `tool` with `args` may touch, its paths resolved against `cwd`. */
export function callAccess(tool: Tool, args: unknown, cwd: string): CallAccess {
  const input = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  const file = typeof input.file_path === "string" ? input.file_path : typeof input.notebook_path === "string" ? input.notebook_path : undefined;
  if (file !== undefined) {
    const paths = new Set([path.resolve(cwd, file)]);
    return { reads: paths, writes: tool.readOnly ? NONE : paths, together: false };
  }
  if (tool.name === "Bash") return typeof input.command === "string" && onlyReads(input.command) ? COMMAND_THAT_READS : UNKNOWN;
  return tool.readOnly ? READS_ANYTHING : UNKNOWN;
}

/** Whether every command of `command` is known to only read (as the permission check knows it). */
function onlyReads(command: string): boolean {
  const parsed = commandUnits(command);
  return parsed.ok && parsed.units.every((unit) => unit.problem === undefined && (unit.effect.readOnly || unit.effect.transparent) && unit.effect.writes.length === 0 && unit.redirectWrites.length === 0);
}

/** The indexes of the calls before `index` that call `index` must wait for (undefined: a call
 * that will not run, such as one with invalid arguments, waits for nothing and holds nothing up). */
export function mustWaitFor(accesses: readonly (CallAccess | undefined)[], index: number): number[] {
  const later = accesses[index];
  if (!later) return [];
  const waits: number[] = [];
  for (let i = 0; i < index; i++) {
    const earlier = accesses[i];
    if (earlier && conflict(earlier, later)) waits.push(i);
  }
  return waits;
}

function conflict(earlier: CallAccess, later: CallAccess): boolean {
  if (earlier.together && later.together) return false;
  return overlap(earlier.writes, later.reads) || overlap(earlier.writes, later.writes) || overlap(earlier.reads, later.writes);
}

function overlap(a: Paths, b: Paths): boolean {
  if (a === "all") return b === "all" || b.size > 0;
  if (b === "all") return a.size > 0;
  for (const item of a) if (b.has(item)) return true;
  return false;
}
