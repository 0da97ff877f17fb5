// Server → client frames as JSON text. Delta frames are assembled around operations that were
// serialized once, so a batch costs one JSON.stringify however many clients receive it.
import type { HarnessState } from "@harness/protocol";

export function deltaFrame(operationsJson: string, seq: number): string {
  return `{"type":"delta","operations":${operationsJson},"seq":${seq}}`;
}

export function stateFrame(state: HarnessState, seq: number): string {
  return JSON.stringify({ type: "state", state, seq });
}

export function errorFrame(message: string, code?: string, command?: number): string {
  return JSON.stringify({ type: "error", message, code, command });
}
