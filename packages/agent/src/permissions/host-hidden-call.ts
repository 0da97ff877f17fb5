// The host-hidden check of host-hidden.ts for a tool call another agent makes (Claude Code, whose
// file tools have the same names and inputs): its own rules and modes cannot be told to keep a
// directory closed but for the workspace inside it.
import { decide } from "./decide.ts";
import { READ_TOOLS, WRITE_TOOLS, canonicalToolName } from "./tool-names.ts";

/** Why the file tool call `name` with `input` may not run because it reaches what the host hides
 * (`hidden`, but for `cwd` and its temporary directory) or changes the workspace's settings or
 * hook scripts (whether Claude Code's sandbox is on is its settings' choice, so they are closed
 * whatever it is), or undefined. */
export function hostHiddenCallDenial(name: string, input: unknown, places: { cwd: string; home: string; hidden: readonly string[] }): string | undefined {
  const tool = canonicalToolName(name);
  if (!READ_TOOLS.has(tool) && !WRITE_TOOLS.has(tool)) return undefined;
  if (typeof input !== "object" || input === null) return undefined;
  // In bypassPermissions without rules, a file tool call is denied only for what the host hides.
  const decision = decide(
    { name, input: input as Record<string, unknown> },
    { mode: "bypassPermissions", rules: { allow: [], ask: [], deny: [] }, cwd: places.cwd, home: places.home, additionalDirectories: [], hostHidden: places.hidden, settingsLocked: true },
  );
  return decision.behavior === "deny" ? decision.reason : undefined;
}
