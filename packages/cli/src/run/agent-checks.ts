// The checks of what sub-agents given as JSON (--agents, or the initialize request's `agents`) hold
// in their hooks and server definitions, as the run reads them. A hook mistake the parser loads
// past (HookDiagnostic.kept) is said; any other refuses the agent. Loads the agent package's checks:
// --agents imports this once its value is to be read, so that usage errors answer without them.
import { parseHooksConfig, parseServerEntry } from "@harness/agent/config-checks";
import type { InlineAgentChecks } from "./inline-agents.ts";

export function inlineAgentChecks(env: Readonly<Record<string, string | undefined>>, where: string): InlineAgentChecks {
  const keyed = (d: { key?: string; message: string }) => (d.key === undefined ? d.message : `${d.key}: ${d.message}`);
  return {
    hooks: (raw) => {
      const said = parseHooksConfig(raw, where).diagnostics.map((d) => ({ text: keyed({ ...d, key: d.key?.replace(/^hooks\.?/, "") || undefined }), kept: d.kept === true }));
      return { problem: said.find((d) => !d.kept)?.text, ignored: said.filter((d) => d.kept).map((d) => d.text) };
    },
    server: (name, raw) => {
      const parsed = parseServerEntry(name, raw, { scope: "agent", file: where, keyPrefix: name }, env);
      return parsed.ok ? undefined : keyed(parsed.diagnostic);
    },
  };
}
