// Runner events → state deltas. Pure: (state, run cursor, event) → operations plus the next cursor.
// The caller applies the operations; nothing here mutates its inputs.
import type { DeltaOperation, HarnessMessage, HarnessState, HarnessToolCall, JSONValue, RunnerEvent, Usage } from "@harness/protocol";

/** Where a run writes: the assistant message it streams into, found by id so indices never go stale. */
export type RunCursor = {
  assistantMessageId: string;
  /** True after a tool call until text follows it; the next text then starts a new paragraph. */
  afterTool: boolean;
};

export type Translation = { operations: DeltaOperation[]; cursor: RunCursor };

/** Index of the message with `id`, searching from the end where the running message lives; -1 if absent. */
export function findMessage(state: HarnessState, id: string): number {
  const { messages } = state;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].id === id) return i;
  return -1;
}

export function addUsage(total: Usage | undefined, run: Usage): Usage {
  if (!total) return { ...run };
  const sum: Usage = { inputTokens: total.inputTokens + run.inputTokens, outputTokens: total.outputTokens + run.outputTokens };
  const optional = ["cacheReadTokens", "cacheWriteTokens", "costUsd"] as const;
  for (const key of optional) {
    if (total[key] !== undefined || run[key] !== undefined) sum[key] = (total[key] ?? 0) + (run[key] ?? 0);
  }
  return sum;
}

/** Operations that end every unfinished tool call of message `index` with `status` (and `output`, if given). */
export function settleToolCalls(
  message: HarnessMessage,
  index: number,
  status: HarnessToolCall["status"],
  output?: string,
): DeltaOperation[] {
  const ops: DeltaOperation[] = [];
  const calls = message.toolCalls ?? [];
  for (let j = 0; j < calls.length; j++) {
    if (calls[j].status !== "running" && calls[j].status !== "awaiting-approval") continue;
    const base = ["messages", String(index), "toolCalls", String(j)];
    ops.push({ type: "set", path: [...base, "status"], value: status });
    if (output !== undefined && calls[j].output === undefined) ops.push({ type: "set", path: [...base, "output"], value: output });
  }
  return ops;
}

function messagePath(index: number, ...rest: string[]): string[] {
  return ["messages", String(index), ...rest];
}

function toolCall(event: Extract<RunnerEvent, { type: "tool.started" }>): HarnessToolCall {
  const call: HarnessToolCall = { id: event.toolUseId, name: event.toolName, status: "running" };
  if (event.input !== undefined) call.input = event.input;
  if (event.parentToolUseId !== undefined) call.parentToolCallId = event.parentToolUseId;
  return call;
}

export function translateEvent(state: HarnessState, cursor: RunCursor, event: RunnerEvent): Translation {
  const i = findMessage(state, cursor.assistantMessageId);
  if (i < 0) return { operations: [], cursor };
  const message = state.messages[i];

  switch (event.type) {
    case "run.started":
      return { operations: state.status === "running" ? [] : [{ type: "set", path: ["status"], value: "running" }], cursor };

    case "assistant.delta": {
      // A sub-agent's text reaches the conversation as its Task call's result, not as reply text.
      if (event.text === "" || event.agentId) return { operations: [], cursor };
      const path = messagePath(i, "content");
      const text = cursor.afterTool && message.content !== "" && !message.content.endsWith("\n") ? `\n\n${event.text}` : event.text;
      return { operations: [{ type: "append-text", path, value: text }], cursor: cursor.afterTool ? { ...cursor, afterTool: false } : cursor };
    }

    case "tool.started": {
      const call = toolCall(event) as unknown as JSONValue;
      const next = { ...cursor, afterTool: true };
      if (!message.toolCalls) return { operations: [{ type: "set", path: messagePath(i, "toolCalls"), value: [call] }], cursor: next };
      return { operations: [{ type: "set", path: messagePath(i, "toolCalls", String(message.toolCalls.length)), value: call }], cursor: next };
    }

    case "tool.completed": {
      const j = message.toolCalls?.findIndex((c) => c.id === event.toolUseId) ?? -1;
      if (j < 0) return { operations: [], cursor };
      const base = messagePath(i, "toolCalls", String(j));
      return {
        operations: [
          { type: "set", path: [...base, "output"], value: event.output },
          { type: "set", path: [...base, "status"], value: event.isError ? "error" : "complete" },
        ],
        cursor,
      };
    }

    case "run.completed": {
      const ops: DeltaOperation[] = settleToolCalls(message, i, "error", "the run ended before this tool call finished");
      // A backend that reports its answer only as a result (no streamed text) still shows it.
      if (message.content === "" && event.result) ops.push({ type: "set", path: messagePath(i, "content"), value: event.result });
      ops.push({ type: "set", path: messagePath(i, "status"), value: "complete" });
      ops.push({ type: "set", path: ["status"], value: "idle" });
      if (event.usage) ops.push({ type: "set", path: ["usage"], value: addUsage(state.usage, event.usage) as JSONValue });
      if (event.sessionId && event.sessionId !== state.sessionId) ops.push({ type: "set", path: ["sessionId"], value: event.sessionId });
      return { operations: ops, cursor };
    }

    case "run.error":
      return { operations: endRunOps(state, i, "error", { status: "error", error: event.message }), cursor };

    case "approval.requested":
    case "approval.resolved":
    case "user.message":
    case "notice":
      return { operations: [], cursor };
  }
}

/** Operations that end the run in message `index`: the message gets `messageStatus`, unfinished tool
 * calls become errors, and the session gets `status` (and `error`, when given). */
export function endRunOps(
  state: HarnessState,
  index: number,
  messageStatus: HarnessMessage["status"],
  session: { status: HarnessState["status"]; error?: string; toolOutput?: string },
): DeltaOperation[] {
  const message = state.messages[index];
  const ops = settleToolCalls(message, index, "error", session.toolOutput);
  ops.push({ type: "set", path: messagePath(index, "status"), value: messageStatus });
  if (state.pendingApprovals?.length) ops.push({ type: "set", path: ["pendingApprovals"], value: [] });
  ops.push({ type: "set", path: ["status"], value: session.status });
  if (session.error !== undefined) ops.push({ type: "set", path: ["error"], value: session.error });
  return ops;
}
