// The status line a chat at a terminal shows (Claude Code's statusLine): which scope's holds, as
// hooks are decided, since it runs a command of the settings as a hook does.
import { describeDiagnostic } from "../harness/diagnostic.ts";
import { hooksRestriction } from "../harness/hooks/setup-hooks.ts";
import type { LoadedSettings, Settings } from "./types.ts";

export type StatusLineSettings = NonNullable<Settings["statusLine"]>;

/** The statusLine that runs under `loaded`: none when the managed settings say disableAllHooks;
 * the managed settings' own only under allowManagedHooksOnly, or when another scope says
 * disableAllHooks; else the one of the highest scope that sets it. `problems`: what is wrong with a
 * statusLine of any scope, naming the file and the key. */
export function statusLineOf(loaded: LoadedSettings): { statusLine?: StatusLineSettings; problems: string[] } {
  const problems = loaded.diagnostics.filter((d) => d.key === "statusLine" || d.key?.startsWith("statusLine.")).map(describeDiagnostic);
  const restricted = hooksRestriction(loaded);
  if (restricted === "all") return { problems };
  const sources = restricted === "managed" ? loaded.sources.filter((source) => source.scope === "managed") : loaded.sources;
  const statusLine = sources.findLast((source) => source.settings.statusLine !== undefined)?.settings.statusLine;
  return { ...(statusLine && { statusLine }), problems };
}
