// Applying delta operations to a state. Pure: the input is never mutated; objects and arrays along
// the changed path are copied, everything else is shared. Server, SDK and UI all use this one
// function, so a client that applies the same operations in the same order holds the same state.
import type { DeltaOperation, JSONValue } from "./wire.ts";

export class OperationError extends Error {}

type Container = { [key: string]: unknown } | unknown[];

function copyOf(node: unknown, path: string[], depth: number): Container {
  if (Array.isArray(node)) return node.slice();
  if (node !== null && typeof node === "object") return { ...(node as object) } as Container;
  throw new OperationError(`path ${JSON.stringify(path.slice(0, depth))} is not an object or array`);
}

function setChild(parent: Container, key: string, value: unknown, path: string[]): void {
  if (Array.isArray(parent)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) {
      throw new OperationError(`index ${key} out of range in ${JSON.stringify(path)}`);
    }
    parent[index] = value;
  } else {
    parent[key] = value;
  }
}

function applyOne<T>(state: T, op: DeltaOperation): T {
  const { path } = op;
  if (path.length === 0) {
    if (op.type === "set") return op.value as T;
    if (typeof state !== "string") throw new OperationError("append-text at the root needs a string root");
    return (state + op.value) as T;
  }
  const root = copyOf(state, path, 0);
  let parent: Container = root;
  for (let depth = 0; depth < path.length - 1; depth++) {
    const key = path[depth];
    const child = copyOf((parent as Record<string, unknown>)[key], path, depth + 1);
    setChild(parent, key, child, path);
    parent = child;
  }
  const last = path[path.length - 1];
  if (op.type === "set") {
    setChild(parent, last, op.value, path);
  } else {
    const current = (parent as Record<string, unknown>)[last];
    if (current !== undefined && typeof current !== "string") {
      throw new OperationError(`append-text at ${JSON.stringify(path)} needs a string`);
    }
    setChild(parent, last, (current ?? "") + op.value, path);
  }
  return root as T;
}

/** Returns the state after applying `operations` in order. Throws OperationError when an operation
 * does not fit the state (a client that sees this should ask for a fresh snapshot). */
export function applyOperations<T>(state: T, operations: readonly DeltaOperation[]): T {
  let next = state;
  for (const op of operations) next = applyOne(next, op);
  return next;
}

export type { JSONValue };
