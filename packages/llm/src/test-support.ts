// Helpers shared by this package's tests: draining a provider stream and picking events out of it.
import assert from "node:assert/strict";
import type { ModelEvent } from "./types.ts";

export type Done = Extract<ModelEvent, { type: "done" }>;
export type Retry = Extract<ModelEvent, { type: "retry" }>;

export async function collect(events: AsyncIterable<ModelEvent>, onEvent?: (e: ModelEvent) => void): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) {
    out.push(event);
    onEvent?.(event);
  }
  return out;
}

export function lastDone(events: ModelEvent[]): Done {
  const last = events.at(-1);
  assert.equal(last?.type, "done", "the stream ends with a done event");
  assert.equal(events.filter((e) => e.type === "done").length, 1, "exactly one done event");
  return last as Done;
}

export const retries = (events: ModelEvent[]): Retry[] => events.filter((e): e is Retry => e.type === "retry");

export const textOf = (events: ModelEvent[]): string => events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");

export const thinkingOf = (events: ModelEvent[]): string[] => events.flatMap((e) => (e.type === "thinking-delta" ? [e.text] : []));
