// Executions: each is one prompt submitted to a session through a connection of its own, as any
// WebSocket client's, so every other client of the session sees the run live. Its events are kept
// (numbered, for SSE's Last-Event-ID) in memory while it runs, and stored (sqlite/executions.ts)
// as it starts, runs and ends: a restarted server still answers for it, an hour after it ended,
// and one under way when the server died reads as failed, saying so.
import type { ServerMessage } from "@harness/protocol";
import type { Connection, RunnerAnswer } from "@harness/session";
import type { SessionRegistry } from "../registry.ts";
import type { ExecutionRow, ExecutionStore, ExecutionSummary } from "../sqlite/executions.ts";
import { KEEP_ENDED_MS } from "../sqlite/executions.ts";
import { frozenWatch, interrupted, readRecord, recordOf, statusOf, type ExecutionRecord, type WatchView } from "./execution-record.ts";
import type { PlanEdit, Todo } from "./plan.ts";
import { RunWatch, type ExecutionEvent, type ExecutionStatus } from "./run-watch.ts";
import type { ExecutionNotice } from "./webhooks.ts";
import { artifactFeed } from "./artifact-feed.ts";
import type { ArtifactSummary } from "./artifacts.ts";

export type Execution = {
  id: string;
  userId: string;
  sessionId: string;
  startedAt: string;
  completedAt?: string;
  watch: WatchView;
  /** Every event so far; an event's SSE id is its index plus one. */
  events: ExecutionEvent[];
  /** Called after each new event, and when what the run waits for (watch.awaiting()) changes. */
  listeners: Set<() => void>;
  /** Settles once the execution has ended. */
  ended: Promise<void>;
  /** Asks the run to stop; false when it has already ended. */
  cancel(): boolean;
  /** Approves or denies a call of the run that waits for approval. */
  answer(toolCallId: string, approve: boolean): void;
  /** Asks the run to stop the sub-agent of its Task call `toolCallId`, the run going on; the
   * listeners are told when the session refuses it (stopRefused then says why). */
  stopAgent(toolCallId: string): void;
  /** Why the session refused the last stopAgent(), once it has. */
  stopRefused?: string;
  /** The todo lists set over the API (plan.ts), in order. */
  planEdits: PlanEdit[];
  /** Makes `todos` the run's todo list: the runner's answer (409 once the run has ended, 501 when
   * its backend keeps its own list). Taken, it is one of planEdits and the listeners are told. */
  setTodos(todos: Todo[]): Promise<RunnerAnswer<undefined>>;
};

/** The most kept in memory at once (the oldest ended go first): those the store could not take. */
export const MAX_KEPT = 1000;

/** `store`: where executions are kept past their run and the server's life; `log` says what it
 * could not store (an execution not stored stays in memory for its hour); `notify` is told of each
 * start and end (the webhooks), and must return at once. */
export function createExecutions(
  registry: SessionRegistry,
  store: ExecutionStore,
  log: (line: string) => void = () => {},
  notify: (notice: ExecutionNotice) => void = () => {},
  artifactsFrom: (execution: Execution, from: number, seen: number) => Promise<{ artifacts: ArtifactSummary[]; count: number }> = async () => ({ artifacts: [], count: 0 }),
) {
  /** Those under way, and those ended that the store did not take. */
  const byId = new Map<string, Execution>();

  // What was under way when the last server stopped ended with it.
  try {
    for (const row of store.unended()) store.put({ ...row, endedAt: Date.now(), status: "failed", record: JSON.stringify(interrupted(readRecord(row))) });
  } catch (error) {
    log(`executions: cannot write down those the last server left under way: ${(error as Error).message}`);
  }

  /** Stores the execution as it is now; false when the store refused it (its lock held elsewhere). */
  function save(execution: Execution): boolean {
    try {
      store.put({
        id: execution.id,
        userId: execution.userId,
        sessionId: execution.sessionId,
        startedAt: Date.parse(execution.startedAt),
        ...(execution.completedAt !== undefined && { endedAt: Date.parse(execution.completedAt) }),
        status: execution.watch.status,
        record: JSON.stringify(recordOf(execution.watch, execution.events, execution.planEdits)),
      });
      return true;
    } catch (error) {
      log(`executions: cannot store execution ${execution.id}: ${(error as Error).message}`);
      return false;
    }
  }

  /** Submits `prompt` to the session (which must exist) and returns its execution, under way. */
  async function start(userId: string, sessionId: string, prompt: string): Promise<Execution> {
    if (byId.size >= MAX_KEPT) {
      const oldestEnded = [...byId.values()].find((execution) => execution.watch.finished);
      if (oldestEnded) byId.delete(oldestEnded.id);
    }
    const lease = await registry.acquire(userId, sessionId);
    let markEnded!: () => void;
    let cancelSent = false;
    let stopSent = false;
    let savedStatus: ExecutionStatus | undefined;
    const feed = artifactFeed((event) => {
      execution.events.push(event);
      for (const listener of execution.listeners) listener();
      if (event.type === "done") queueMicrotask(end);
      else if (watch.status !== savedStatus) {
        savedStatus = watch.status;
        save(execution);
      }
    }, (from, seen) => artifactsFrom(execution, from, seen), log);
    const watch = new RunWatch(prompt, feed.event, () => {
      for (const listener of execution.listeners) listener();
    }, () => feed.touched(watch.touched.length));
    const execution: Execution = {
      id: crypto.randomUUID(),
      userId,
      sessionId,
      startedAt: new Date().toISOString(),
      watch,
      events: [],
      listeners: new Set(),
      ended: new Promise((resolve) => (markEnded = resolve)),
      cancel() {
        if (watch.finished) return false;
        cancelSent = true;
        lease.session.receive(conn, JSON.stringify({ type: "commands", commands: [{ type: "cancel" }] }));
        return true;
      },
      stopAgent(toolCallId) {
        stopSent = true;
        execution.stopRefused = undefined;
        lease.session.receive(conn, JSON.stringify({ type: "commands", commands: [{ type: "stop-agent", toolCallId }] }));
      },
      planEdits: [],
      async setTodos(todos) {
        if (watch.finished) return { ok: false, status: 409, message: "the execution has ended" };
        const answer = await lease.session.controlRun({ type: "todos", todos });
        if (!answer.ok) return answer;
        execution.planEdits.push({ after: execution.events.length, todos, at: new Date().toISOString() });
        save(execution);
        for (const listener of execution.listeners) listener();
        return answer;
      },
      answer(toolCallId, approve) {
        const command = approve ? { type: "approve", toolCallId } : { type: "deny", toolCallId, reason: "denied over the Open Harness API" };
        lease.session.receive(conn, JSON.stringify({ type: "commands", commands: [command] }));
      },
    };
    const conn: Connection = {
      send(frame) {
        const message = JSON.parse(frame) as ServerMessage;
        if (message.type === "error" && stopSent) {
          stopSent = false;
          execution.stopRefused = message.message;
          for (const listener of execution.listeners) listener();
          return;
        }
        // A refused cancel (the run ended meanwhile) says nothing about the run.
        if (message.type === "error" && cancelSent) return;
        watch.frame(message);
      },
      close(_code, reason) {
        watch.fail("session_closed", reason || "the session was closed");
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
      notify({ type: "ended", execution });
      // Stored, it is read from the store from now on; else it stays here for its hour.
      if (save(execution)) byId.delete(execution.id);
      else setTimeout(() => byId.delete(execution.id), KEEP_ENDED_MS).unref();
    }
    byId.set(execution.id, execution);
    savedStatus = watch.status;
    save(execution);
    lease.session.connect(conn);
    lease.session.receive(conn, JSON.stringify({ type: "commands", commands: [{ type: "submit", prompt }] }));
    notify({ type: "started", execution });
    return execution;
  }

  /** The user's execution of that id; another user's is not found, as one that never was. */
  function get(userId: string, id: string): Execution | undefined {
    const execution = byId.get(id);
    if (execution) return execution.userId === userId ? execution : undefined;
    const row = readOr(() => store.get(userId, id));
    return row && storedExecution(row, () => row);
  }

  /** The user's executions, the most recently started first. */
  function list(userId: string): Execution[] {
    const live = [...byId.values()].filter((execution) => execution.userId === userId).reverse();
    const stored = (readOr(() => store.list(userId)) ?? []).filter((row) => !byId.has(row.id)).map((row) => storedExecution(row, () => readOr(() => store.get(userId, row.id))));
    return [...live, ...stored].sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
  }

  /** `read`'s answer; undefined when the store cannot say (the in-memory ones still answer). */
  function readOr<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      log(`executions: cannot read the stored ones: ${(error as Error).message}`);
      return undefined;
    }
  }

  return { start, get, list };
}

/** An execution read from the store: ended (or as the store last saw it), nothing left to stream.
 * Its record (every event of its run) is read from `load()` only when asked. */
function storedExecution(summary: ExecutionSummary, load: () => ExecutionRow | undefined): Execution {
  let record: ExecutionRecord | undefined;
  // Gone meanwhile (past its hour): read as a record that does not read.
  const full = () => (record ??= readRecord(load() ?? { ...summary, record: "" }));
  return {
    id: summary.id,
    userId: summary.userId,
    sessionId: summary.sessionId,
    startedAt: new Date(summary.startedAt).toISOString(),
    ...(summary.endedAt !== undefined && { completedAt: new Date(summary.endedAt).toISOString() }),
    watch: frozenWatch(statusOf(summary.status), full),
    get events() {
      return full().events;
    },
    get planEdits() {
      return full().plan_edits ?? [];
    },
    setTodos: async () => ({ ok: false, status: 409, message: "the execution has ended" }),
    listeners: new Set(),
    ended: Promise.resolve(),
    cancel: () => false,
    answer: () => {},
    stopAgent: () => {},
  };
}

export type Executions = ReturnType<typeof createExecutions>;

/** Whether the execution has all its events: its run ended, and its last event (`done`, which may
 * come a moment later than the end: it waits for the artifacts announced before it) is out. */
export function allEventsOut(execution: Execution): boolean {
  return execution.watch.finished && execution.events.at(-1)?.type === "done";
}
