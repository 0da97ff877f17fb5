// Runner events → state deltas. Pure: (state, run cursor, event) → operations plus the next cursor.
// The caller applies the operations; nothing here mutates its inputs. New message ids come from the
// `newId` the caller passes.
import type { BackgroundShellInfo, DeltaOperation, HarnessMessage, HarnessState, HarnessToolCall, JSONValue, RunAvailable, RunnerEvent, RunnerPermissionMode } from "@harness/protocol";
import { appendTo } from "./array-ops.ts";
import { changedFilesOps } from "./changed-files.ts";
import { configModeOps, wireMode } from "./permission-modes.ts";
import { runWaitsClearedOps, steersReadOps } from "./queued-steers.ts";
import { callCompleted, endTotalsOps, isCounts, type LiveCount } from "./usage-count.ts";

/** Where a run writes: the assistant message it streams into, found by id so indices never go stale. */
export type RunCursor = {
  assistantMessageId: string;
  /** True after a tool call until text follows it; the next text then starts a new paragraph. */
  afterTool: boolean;
  /** True when text or a tool call came after the message's thinking: thinking that follows starts
   * a new paragraph. Not stored (a run re-attached after a restart may run two paragraphs of
   * thinking together). */
  thinkingBreak?: boolean;
  /** Set at the run's first call.completed: the totals held before it, from which its end counts
   * (so that the final figures are what they would be without the calls reported on the way), and
   * what its calls reported so far. */
  live?: LiveCount;
};

/** The cursor once something other than thinking (text, a tool call) reached `message`: thinking
 * that follows is another model call's, kept apart. */
function afterOther(message: HarnessMessage, cursor: RunCursor): RunCursor {
  return message.thinking === undefined || cursor.thinkingBreak ? cursor : { ...cursor, thinkingBreak: true };
}

export type Translation = { operations: DeltaOperation[]; cursor: RunCursor };

/** Index of the message with `id`, searching from the end where the running message lives; -1 if absent. */
export function findMessage(state: HarnessState, id: string): number {
  const { messages } = state;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].id === id) return i;
  return -1;
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
    if (output === undefined) continue;
    // A running call may show what it printed so far: the note goes after it.
    const printed = calls[j].output;
    ops.push({ type: "set", path: [...base, "output"], value: printed === undefined ? output : `${printed.trimEnd()}\n\n${output}` });
  }
  return ops;
}

function messagePath(index: number, ...rest: string[]): string[] {
  return ["messages", String(index), ...rest];
}

function toolCall(event: Extract<RunnerEvent, { type: "tool.started" }>, textOffset: number): HarnessToolCall {
  const call: HarnessToolCall = { id: event.toolUseId, name: event.toolName, status: "running", textOffset };
  if (event.input !== undefined) call.input = event.input;
  if (event.parentToolUseId !== undefined) call.parentToolCallId = event.parentToolUseId;
  return call;
}

function findCall(message: HarnessMessage, id: string): number {
  return message.toolCalls?.findIndex((c) => c.id === id) ?? -1;
}

export function translateEvent(state: HarnessState, cursor: RunCursor, event: RunnerEvent, newId: () => string = randomId): Translation {
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
      return { operations: [{ type: "append-text", path, value: text }], cursor: afterOther(message, cursor.afterTool ? { ...cursor, afterTool: false } : cursor) };
    }

    case "assistant.thinking": {
      // A sub-agent's thinking stays with it, as its text does.
      if (event.text === "" || event.agentId) return { operations: [], cursor };
      const path = messagePath(i, "thinking");
      if (message.thinking === undefined) return { operations: [{ type: "set", path, value: event.text }], cursor: { ...cursor, thinkingBreak: false } };
      // Thinking again after reply text or a tool call (the next model call's): a new paragraph.
      const text = cursor.thinkingBreak && !message.thinking.endsWith("\n") ? `\n\n${event.text}` : event.text;
      return { operations: [{ type: "append-text", path, value: text }], cursor: cursor.thinkingBreak ? { ...cursor, thinkingBreak: false } : cursor };
    }

    case "assistant.retracted": {
      if (event.thinking) {
        // The paragraph break before withdrawn thinking stays, for the thinking that replaces it.
        const thinking = message.thinking;
        if (event.agentId || event.text === "" || thinking === undefined || !thinking.endsWith(event.text)) return { operations: [], cursor };
        return { operations: [{ type: "set", path: messagePath(i, "thinking"), value: thinking.slice(0, -event.text.length) }], cursor };
      }
      if (event.agentId || event.text === "" || !message.content.endsWith(event.text)) return { operations: [], cursor };
      let content = message.content.slice(0, -event.text.length);
      let next = cursor;
      // The paragraph break put before the withdrawn text, after a tool call, goes with it.
      const lastCall = message.toolCalls?.at(-1);
      if (lastCall && content.endsWith("\n\n") && lastCall.textOffset === content.length - 2) {
        content = content.slice(0, -2);
        next = { ...cursor, afterTool: true };
      }
      return { operations: [{ type: "set", path: messagePath(i, "content"), value: content }], cursor: next };
    }

    case "tool.started": {
      // A call whose approval was asked for before it was announced is held already: it stays one
      // call (in the state it is in), given its input when the request had none.
      const j = findCall(message, event.toolUseId);
      if (j >= 0) {
        const held = message.toolCalls![j];
        if (held.input !== undefined || event.input === undefined) return { operations: [], cursor };
        return { operations: [{ type: "set", path: messagePath(i, "toolCalls", String(j), "input"), value: event.input as JSONValue }], cursor };
      }
      const call = toolCall(event, message.content.length) as unknown as JSONValue;
      const next = afterOther(message, { ...cursor, afterTool: true });
      return { operations: [appendTo(messagePath(i, "toolCalls"), message.toolCalls, call)], cursor: next };
    }

    case "tool.output": {
      // Output of a call that has ended (its result is in) or that the message does not hold is late.
      const j = findCall(message, event.toolUseId);
      if (j < 0 || message.toolCalls![j].status !== "running") return { operations: [], cursor };
      const path = messagePath(i, "toolCalls", String(j), "output");
      const printed = message.toolCalls![j].output;
      if (event.replace || printed === undefined) return { operations: [{ type: "set", path, value: event.text }], cursor };
      return { operations: event.text === "" ? [] : [{ type: "append-text", path, value: event.text }], cursor };
    }

    case "tool.completed": {
      const j = findCall(message, event.toolUseId);
      if (j < 0) return { operations: [], cursor };
      const base = messagePath(i, "toolCalls", String(j));
      const operations: DeltaOperation[] = [{ type: "set", path: [...base, "output"], value: event.output }];
      // A denied call stays "denied"; its output says why.
      if (message.toolCalls![j].status !== "denied") {
        operations.push({ type: "set", path: [...base, "status"], value: event.isError ? "error" : "complete" });
      }
      return { operations, cursor };
    }

    case "call.completed":
      return callCompleted(state, cursor, event);

    case "files.changed":
      return { operations: changedFilesOps(message, i, event, event.toolUseId), cursor };

    case "run.completed": {
      const ops: DeltaOperation[] = settleToolCalls(message, i, "error", "the run ended before this tool call finished");
      // A backend that reports its answer only as a result (no streamed text) still shows it.
      if (message.content === "" && event.result) ops.push({ type: "set", path: messagePath(i, "content"), value: event.result });
      ops.push({ type: "set", path: messagePath(i, "status"), value: "complete" });
      ops.push({ type: "set", path: ["status"], value: "idle" });
      ops.push(...endTotalsOps(state, cursor, event));
      const last = event.turns?.at(-1);
      if (last && isCounts(last)) ops.push({ type: "set", path: ["lastCall"], value: last as JSONValue });
      if (event.sessionId && event.sessionId !== state.sessionId) ops.push({ type: "set", path: ["sessionId"], value: event.sessionId });
      ops.push(...runWaitsClearedOps(state));
      if (event.changedFiles) ops.push(...changedFilesOps(message, i, event.changedFiles));
      return { operations: ops, cursor };
    }

    case "run.error": {
      const ops = endRunOps(state, i, "error", { status: "error", error: event.message });
      if (event.changedFiles) ops.push(...changedFilesOps(message, i, event.changedFiles));
      ops.push(...endTotalsOps(state, cursor, event));
      if (event.sessionId && event.sessionId !== state.sessionId) ops.push({ type: "set", path: ["sessionId"], value: event.sessionId });
      return { operations: ops, cursor };
    }

    case "approval.requested":
      return { operations: approvalRequested(state, i, message, event), cursor };

    case "approval.resolved":
      return { operations: approvalResolved(state, i, message, event), cursor };

    case "user.message": {
      // Only a steer of the main agent becomes part of the conversation: the reply so far is done,
      // the steer follows it, and the rest of the run streams into a new assistant message.
      if (!event.steer || event.agentId) return { operations: [], cursor };
      const at = state.messages.length;
      const user: HarnessMessage = { id: newId(), role: "user", content: event.text, status: "complete", steer: true };
      const assistant: HarnessMessage = { id: newId(), role: "assistant", content: "", status: "running" };
      return {
        operations: [
          ...settleToolCalls(message, i, "error", "the run moved on before this tool call finished"),
          { type: "set", path: messagePath(i, "status"), value: "complete" },
          { type: "set", path: messagePath(at), value: user as JSONValue },
          { type: "set", path: messagePath(at + 1), value: assistant as JSONValue },
          ...steersReadOps(state, event.text),
        ],
        // The run goes on: what its calls reported so far stays counted from the same totals.
        cursor: { ...cursor, assistantMessageId: assistant.id, afterTool: false },
      };
    }

    case "notice":
      return { operations: noticeOps(state, { level: event.level, message: event.message }), cursor };

    case "mode.changed":
      return { operations: event.agentId ? [] : modeOps(state, event.permissionMode), cursor };

    case "run.ready":
      return { operations: event.agentId ? [] : availableOps(state.available, event.available), cursor };

    // The list whole (a few dozen shells at most): a run brings it up to date as it starts.
    case "shells.changed":
      return { operations: shellsOps(state, event.shells), cursor };

    // The host hears of it (SessionOptions.onHookRan); the conversation does not change.
    case "hook.ran":
      return { operations: [], cursor };
  }
}

/** The run left plan mode (its plan was approved): the session's configuration says the new mode, so
 * that its next runs start there too rather than in the mode the settings give. Plan mode itself has
 * no name in the session's configuration. */
function modeOps(state: HarnessState, mode: RunnerPermissionMode): DeltaOperation[] {
  const wire = wireMode(mode);
  return wire === undefined ? [] : configModeOps(state.config, wire);
}

/** What a run has available, as changes to what the last one had: most runs start with the same
 * (nothing to store or send), and a change (an MCP server's status) is sent alone, not with the
 * rest (which may be thousands of MCP tools). */
function availableOps(before: RunAvailable | undefined, now: RunAvailable): DeltaOperation[] {
  // None stored yet, or one with keys the new one lacks (a runner of another version): set whole.
  if (!before || Object.keys(before).some((key) => !(key in now))) return [{ type: "set", path: ["available"], value: now as JSONValue }];
  const changed = (Object.keys(now) as (keyof RunAvailable)[]).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(now[key]));
  return changed.map((key) => ({ type: "set", path: ["available", key], value: now[key] as JSONValue }));
}

/** Notices kept in the state; older ones give way. */
export const MAX_NOTICES = 50;

function noticeOps(state: HarnessState, notice: { level: "info" | "warning" | "error"; message: string }): DeltaOperation[] {
  const notices = state.notices;
  if (!notices) return [{ type: "set", path: ["notices"], value: [notice] }];
  if (notices.length < MAX_NOTICES) return [{ type: "set", path: ["notices", String(notices.length)], value: notice }];
  return [{ type: "set", path: ["notices"], value: [...notices.slice(notices.length - MAX_NOTICES + 1), notice] }];
}

function randomId(): string {
  return crypto.randomUUID();
}

function approvalRequested(
  state: HarnessState,
  i: number,
  message: HarnessMessage,
  event: Extract<RunnerEvent, { type: "approval.requested" }>,
): DeltaOperation[] {
  const ops: DeltaOperation[] = [];
  const j = findCall(message, event.toolUseId);
  if (j >= 0) {
    ops.push({ type: "set", path: messagePath(i, "toolCalls", String(j), "status"), value: "awaiting-approval" });
  } else {
    const call: HarnessToolCall = { id: event.toolUseId, name: event.toolName, status: "awaiting-approval", textOffset: message.content.length };
    if (event.input !== undefined) call.input = event.input;
    if (event.parentToolUseId !== undefined) call.parentToolCallId = event.parentToolUseId;
    ops.push(appendTo(messagePath(i, "toolCalls"), message.toolCalls, call as unknown as JSONValue));
  }
  const pending = state.pendingApprovals ?? [];
  if (!pending.some((p) => p.toolCallId === event.toolUseId)) {
    const entry = { toolCallId: event.toolUseId, toolName: event.toolName, description: event.description, ...(event.reason !== undefined && { reason: event.reason }) };
    ops.push(appendTo(["pendingApprovals"], state.pendingApprovals, entry));
  }
  if (state.status !== "awaiting-approval") ops.push({ type: "set", path: ["status"], value: "awaiting-approval" });
  return ops;
}

function approvalResolved(
  state: HarnessState,
  i: number,
  message: HarnessMessage,
  event: Extract<RunnerEvent, { type: "approval.resolved" }>,
): DeltaOperation[] {
  const ops: DeltaOperation[] = [];
  const j = findCall(message, event.toolUseId);
  if (j >= 0 && message.toolCalls![j].status === "awaiting-approval") {
    const status = event.behavior === "allow" ? "running" : "denied";
    ops.push({ type: "set", path: messagePath(i, "toolCalls", String(j), "status"), value: status });
  }
  const pending = state.pendingApprovals ?? [];
  const rest = pending.filter((p) => p.toolCallId !== event.toolUseId);
  if (rest.length !== pending.length) ops.push({ type: "set", path: ["pendingApprovals"], value: rest });
  if (rest.length === 0 && state.status === "awaiting-approval") ops.push({ type: "set", path: ["status"], value: "running" });
  return ops;
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
  ops.push(...runWaitsClearedOps(state));
  ops.push({ type: "set", path: ["status"], value: session.status });
  if (session.error !== undefined) ops.push({ type: "set", path: ["error"], value: session.error });
  return ops;
}

/** The state's `shells` made `shells` (a run's shells.changed, or the runner's list between runs):
 * nothing when they are that list already. */
export function shellsOps(state: HarnessState, shells: BackgroundShellInfo[]): DeltaOperation[] {
  return JSON.stringify(state.shells) === JSON.stringify(shells) ? [] : [{ type: "set", path: ["shells"], value: shells as JSONValue }];
}
