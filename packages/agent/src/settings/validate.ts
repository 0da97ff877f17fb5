import type { z } from "zod";
import { describeValue as describe } from "./describe-value.ts";
import { settingsSchema } from "./schema.ts";
import type { Settings, SettingsDiagnostic } from "./types.ts";

type Key = PropertyKey;
const REMOVED = Symbol("removed");

/** Validates a parsed settings file. Each invalid value is dropped (the smallest thing that holds
 * it: an array element, a record entry, a key) with a diagnostic naming its key path; everything
 * else loads. A file that is not a JSON object yields no settings. */
export function validateSettings(raw: unknown, file: string): { settings: Settings; diagnostics: SettingsDiagnostic[] } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { settings: {}, diagnostics: [{ file, message: `expected a JSON object, got ${describe(raw)}` }] };
  }
  const diagnostics: SettingsDiagnostic[] = [];
  let value: unknown = structuredClone(raw);
  // Dropping a value can only remove problems, so a few rounds always settle.
  for (let round = 0; round < 8; round++) {
    const result = settingsSchema.safeParse(value);
    if (result.success) return { settings: result.data as Settings, diagnostics };
    for (const issue of result.error.issues) {
      diagnostics.push({ file, key: keyPath(issue.path), message: issueMessage(issue, valueAt(value, issue.path)) });
      remove(value as Record<Key, unknown>, issue.path);
    }
    value = compact(value);
  }
  return { settings: {}, diagnostics: [...diagnostics, { file, message: "the settings could not be validated; the file is ignored" }] };
}

function issueMessage(issue: z.core.$ZodIssue, actual: unknown): string {
  if (issue.code === "invalid_type") {
    return actual === undefined ? `required ${issue.expected} is missing` : `expected ${issue.expected}, got ${describe(actual)}`;
  }
  if (issue.code === "invalid_value") {
    return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${JSON.stringify(actual)}`;
  }
  return issue.message;
}

/** `permissions.allow[2]`, `env.FOO`, `mcpServers["my.server"]` */
export function keyPath(path: readonly Key[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$-]*$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly Key[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<Key, unknown>)[key];
  }
  return node;
}

/** Drops the value at `path`; when the path ends in a missing key, drops the object that lacks it. */
function remove(root: Record<Key, unknown>, path: readonly Key[]): void {
  const parents: Record<Key, unknown>[] = [];
  let node: unknown = root;
  let depth = 0;
  for (; depth < path.length; depth++) {
    if (typeof node !== "object" || node === null || !(path[depth] in node)) break;
    parents.push(node as Record<Key, unknown>);
    node = (node as Record<Key, unknown>)[path[depth]];
  }
  if (depth === 0) return;
  const parent = parents[depth - 1];
  const key = path[depth - 1];
  if (Array.isArray(parent)) parent[key as number] = REMOVED;
  else delete parent[key];
}

function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== REMOVED).map(compact);
  if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) (value as Record<string, unknown>)[key] = compact(item);
  }
  return value;
}
