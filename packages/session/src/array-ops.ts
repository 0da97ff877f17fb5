// Operations on an array of the state, for the modules that grow one (tool calls, approvals, steers).
import type { DeltaOperation, JSONValue } from "@harness/protocol";

/** Adds `value` at the end of the array at `path` (`items`, as it is now), creating it when absent. */
export function appendTo(path: string[], items: readonly unknown[] | undefined, value: JSONValue): DeltaOperation {
  return items ? { type: "set", path: [...path, String(items.length)], value } : { type: "set", path, value: [value] };
}
