// Approvals of `.mcp.json` servers that the run's host gives (a server's API, for the session whose
// caller connected them): each names the entry it approved by its fingerprint, so that an entry
// changed since (by the agent, a commit, anyone who writes the workspace) is approved by it no more.
import { createHash } from "node:crypto";
import { isJsonObject } from "../config/json-text.ts";

/** One approval: the server's name in `.mcp.json`, and the fingerprint of its entry as approved. */
export type McpGrant = { name: string; entry: string };

/** The JSON text of `value` with every object's keys sorted, so that equal values read alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The fingerprint of a `.mcp.json` entry as it is written (before `${VAR}` expansion): the SHA-256
 * of its canonical JSON, in hex. */
export function mcpEntryFingerprint(entry: unknown): string {
  return createHash("sha256").update(canonical(entry)).digest("hex");
}

/** Whether `grants` approve the entry `raw` of server `name`. */
export function granted(grants: readonly McpGrant[], name: string, raw: unknown): boolean {
  if (!grants.some((grant) => grant.name === name)) return false;
  const print = mcpEntryFingerprint(raw);
  return grants.some((grant) => grant.name === name && grant.entry === print);
}
