// A conversation kept as a transcript only (a `harness run`'s: what the model saw), made into one a
// session can show and go on with: its messages as a chat shows them, and the marks a rewind cuts
// at. Pure: the transcript in, the conversation out.
import { emptyState, type HarnessMessage, type HarnessToolCall, type TranscriptMessage } from "@harness/protocol";
import type { Conversation } from "./ports.ts";

type Block = Record<string, unknown>;

/** `transcript` as a conversation that goes on from `base` (default: none): when `base`'s transcript
 * is where `transcript` begins, its messages and marks are kept and the rest is added after them;
 * otherwise the conversation is made from `transcript` alone, keeping `base`'s settings. Either way
 * the session is idle. `newId` names each message made. */
export function conversationFromTranscript(transcript: readonly TranscriptMessage[], base?: Conversation, newId: () => string = () => crypto.randomUUID()): Conversation {
  const extends_ = base !== undefined && startsWith(transcript, base.transcript);
  const messages: HarnessMessage[] = extends_ ? base.state.messages.map((m) => ({ ...m })) : [];
  const marks: Record<string, number> = extends_ ? { ...base.marks } : {};
  /** The reply the messages since the last prompt go into. */
  let reply: HarnessMessage | undefined;
  for (let i = extends_ ? base.transcript.length : 0; i < transcript.length; i++) {
    const message = transcript[i];
    // A compaction's summary is for the model; the messages before it are still shown.
    if (message.meta?.kind === "compact-summary") continue;
    const blocks: Block[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "user") {
      const results = blocks.filter((b) => b.type === "tool_result");
      for (const result of results) {
        const call = reply?.toolCalls?.find((c) => c.id === result.tool_use_id);
        if (!call) continue;
        call.output = textOf(result.content);
        call.status = result.is_error === true ? "error" : "complete";
      }
      const prompt = textOf(blocks.filter((b) => b.type === "text"));
      if (results.length > 0 && prompt === "") continue;
      const id = newId();
      messages.push({ id, role: "user", content: prompt, status: "complete" });
      marks[id] = i;
      reply = undefined;
      continue;
    }
    if (!reply) {
      reply = { id: newId(), role: "assistant", content: "", status: "complete" };
      messages.push(reply);
    }
    for (const block of blocks) {
      if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
        reply.content += (reply.content && !reply.content.endsWith("\n") ? "\n\n" : "") + block.text;
      } else if (block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
        const call: HarnessToolCall = { id: block.id, name: block.name, status: "complete", textOffset: reply.content.length };
        if (typeof block.input === "object" && block.input !== null && !Array.isArray(block.input)) call.input = block.input as Record<string, unknown>;
        (reply.toolCalls ??= []).push(call);
      }
    }
  }
  const state = { ...(base ? base.state : emptyState()), status: "idle" as const, messages };
  delete state.pendingApprovals;
  delete state.steers;
  delete state.error;
  return { state, transcript: transcript.slice(), marks };
}

/** Whether `transcript` begins with the messages of `prefix` (equal as JSON). */
function startsWith(transcript: readonly TranscriptMessage[], prefix: readonly TranscriptMessage[]): boolean {
  if (prefix.length > transcript.length) return false;
  return prefix.every((message, i) => JSON.stringify(message) === JSON.stringify(transcript[i]));
}

/** The text of a message's content or a tool result's: a string, or the text of its blocks. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is { text: string } => typeof b === "object" && b !== null && (b as Block).type === "text" && typeof (b as Block).text === "string")
    .map((b) => b.text)
    .join("\n");
}
