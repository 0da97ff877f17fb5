// The checks of what sub-agents given as JSON (--agents, or the initialize request's `agents`) hold
// in their hooks and server definitions, as the run reads them. Loads the agent package's checks:
// --agents imports this once its value is to be read, so that usage errors answer without them.
import { parseHooksConfig, parseServerEntry } from "@harness/agent/config-checks";
import type { InlineAgentChecks } from "./inline-agents.ts";

/** What the hook parser says of a mistake it loads past (an unknown key, a bad timeout, async, once
 * or model): the hook still runs, so it is said, not refused. Anything else drops a hook, or would if
 * its wording changed, and refuses the agent. */
const HOOK_KEPT = /(is ignored; expected one of: |; the default applies$|; the hook runs (in the foreground|every time)$|; the default model is used$)/;

export function inlineAgentChecks(env: Readonly<Record<string, string | undefined>>, where: string): InlineAgentChecks {
  const keyed = (d: { key?: string; message: string }) => (d.key === undefined ? d.message : `${d.key}: ${d.message}`);
  return {
    hooks: (raw) => {
      const said = parseHooksConfig(raw, where).diagnostics.map((d) => ({ text: keyed({ ...d, key: d.key?.replace(/^hooks\.?/, "") || undefined }), kept: HOOK_KEPT.test(d.message) }));
      return { problem: said.find((d) => !d.kept)?.text, ignored: said.filter((d) => d.kept).map((d) => d.text) };
    },
    server: (name, raw) => {
      const parsed = parseServerEntry(name, raw, { scope: "agent", file: where, keyPrefix: name }, env);
      return parsed.ok ? undefined : keyed(parsed.diagnostic);
    },
  };
}
