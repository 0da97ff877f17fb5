// Executions: each is one prompt submitted to a session through a connection of its own, as any
// WebSocket client's, so every other client of the session sees the run live. Its events are kept
// (numbered, for SSE's Last-Event-ID) until an hour after it ends, in memory only.
import type { ServerMessage } from "@harness/protocol";
import type { Connection } from "@harness/session";
import type { SessionRegistry } from "../registry.ts";
import { RunWatch, type ExecutionEvent } from "./run-watch.ts";

export type Execution = {
  id: string;
  userId: string;
  sessionId: string;
  startedAt: string;
  completedAt?: string;
  watch: RunWatch;
  /** Every event so far; an event's SSE id is its index plus one. */
  events: ExecutionEvent[];
  /** Called after each new event. */
  listeners: Set<() => void>;
  /** Settles once the execution has ended. */
  ended: Promise<void>;
  /** Asks the run to stop; false when it has already ended. */
  cancel(): boolean;
  /** Approves or denies a call of the run that waits for approval. */
  answer(toolCallId: string, approve: boolean): void;
};

/** How long an ended execution is kept, and the most kept at once (the oldest ended go first). */
export const KEEP_ENDED_MS = 60 * 60 * 1000;
export const MAX_KEPT = 1000;

export function createExecutions(registry: SessionRegistry) {
  const byId = new Map<string, Execution>();

  function forget(id: string): void {
    byId.delete(id);
  }

  /** Submits `prompt` to the session (which must exist) and returns its execution, under way. */
  async function start(userId: string, sessionId: string, prompt: string): Promise<Execution> {
    if (byId.size >= MAX_KEPT) {
      const oldestEnded = [...byId.values()].find((execution) => execution.watch.finished);
      if (oldestEnded) forget(oldestEnded.id);
    }
    const lease = await registry.acquire(userId, sessionId);
    let markEnded!: () => void;
    let cancelSent = false;
    const execution: Execution = {
      id: crypto.randomUUID(),
      userId,
      sessionId,
      startedAt: new Date().toISOString(),
      watch: new RunWatch(prompt, (event) => {
        execution.events.push(event);
        for (const listener of execution.listeners) listener();
        if (event.type === "done") queueMicrotask(end);
      }),
      events: [],
      listeners: new Set(),
      ended: new Promise((resolve) => (markEnded = resolve)),
      cancel() {
        if (execution.watch.finished) return false;
        cancelSent = true;
        lease.session.receive(conn, JSON.stringify({ type: "commands", commands: [{ type: "cancel" }] }));
        return true;
      },
      answer(toolCallId, approve) {
        const command = approve ? { type: "approve", toolCallId } : { type: "deny", toolCallId, reason: "denied over the Open Harness API" };
        lease.session.receive(conn, JSON.stringify({ type: "commands", commands: [command] }));
      },
    };
    const conn: Connection = {
      send(frame) {
        const message = JSON.parse(frame) as ServerMessage;
        // A refused cancel (the run ended meanwhile) says nothing about the run.
        if (message.type === "error" && cancelSent) return;
        execution.watch.frame(message);
      },
      close(_code, reason) {
        execution.watch.fail("session_closed", reason || "the session was closed");
      },
    };
    let released = false;
    function end(): void {
      if (released) return;
      released = true;
      lease.session.disconnect(conn);
      lease.release();
      execution.completedAt = new Date().toISOString();
      markEnded();
      setTimeout(() => forget(execution.id), KEEP_ENDED_MS).unref();
    }
    byId.set(execution.id, execution);
    lease.session.connect(conn);
    lease.session.receive(conn, JSON.stringify({ type: "commands", commands: [{ type: "submit", prompt }] }));
    return execution;
  }

  /** The user's execution of that id; another user's is not found, as one that never was. */
  function get(userId: string, id: string): Execution | undefined {
    const execution = byId.get(id);
    return execution?.userId === userId ? execution : undefined;
  }

  /** The user's executions, the most recently started first. */
  function list(userId: string): Execution[] {
    return [...byId.values()].filter((execution) => execution.userId === userId).reverse();
  }

  return { start, get, list };
}

export type Executions = ReturnType<typeof createExecutions>;
