// Server side of the runner's event stream: one SSE frame per event, written in one piece.
import type { RunnerEventPayload } from "@harness/protocol";

/** Encodes an event as an SSE frame whose `id:` is its seq and whose data is the event's JSON
 * (type first, then seq, then the payload). */
export function encodeEvent(seq: number, event: RunnerEventPayload): string {
  // A main-agent assistant.delta (or assistant.thinking, its like) is the hot path: build its JSON
  // without an intermediate object.
  let json: string;
  if ((event.type === "assistant.delta" || event.type === "assistant.thinking") && event.agentId === undefined && event.parentToolUseId === undefined) {
    json = `{"type":"${event.type}","seq":${seq},"text":${JSON.stringify(event.text)}}`;
  } else {
    const { type, ...payload } = event;
    json = JSON.stringify({ type, seq, ...payload });
  }
  return `id: ${seq}\nevent: ${event.type}\ndata: ${json}\n\n`;
}
