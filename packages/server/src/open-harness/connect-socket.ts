// A sessions.connect socket: the spec's ClientMessages in, its ServerMessages out. Each `message` is
// an execution of the session (as POST …/execute starts one: stored, on the event feed and the
// webhooks, live to the session's other clients), whose events come back under the message's id:
// text, thinking, tool_call (as each call starts), prompt (a call waits to be approved: `stdin`
// with that id answers yes or no), artifact (a file the run made, as it appears: its `artifact_id`
// and `size_bytes` beside the spec's fields), error, and done with the tokens spent; each also names
// its execution (`execution_id`). `cancel` stops an execution of the session, named by its id or by
// the id of the message that started it. A socket that goes away stops its messages' forwarding,
// never their executions. The socket is closed (4404) once its session is deleted. The spec's stdout
// and stderr messages are never sent: a run has no process output of its own (its tool results are
// in the session's history).
import type { WebSocket } from "ws";
import { z } from "zod";
import { describeZodError } from "@harness/protocol";
import { SESSION_DELETED_CLOSE } from "@harness/session";
import { frameText } from "../websocket-channel.ts";
import type { OpenHarness } from "./common.ts";
import { allEventsOut, type Execution } from "./executions.ts";
import { NO, YES } from "./routes-executions.ts";
import type { ExecutionEvent } from "./run-watch.ts";

/** A client this far behind on reading is cut off, rather than have its messages held for it. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** The ended messages a socket still answers for by their ids (the oldest are forgotten). */
const MAX_ENDED = 1000;

const Id = z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }).min(1, "must not be empty").max(200, "must be at most 200 characters");
const ClientMessage = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("message"), id: Id, content: z.string({ error: "must be a string" }).min(1, "must not be empty").max(100_000, "must be at most 100000 characters") }),
    z.strictObject({ type: z.literal("stdin"), id: Id, data: z.string({ error: "must be a string" }).max(10_000, "must be at most 10000 characters") }),
    z.strictObject({ type: z.literal("cancel"), execution_id: Id }),
  ],
  { error: "type: must be message, stdin or cancel" },
);

type Outgoing = { type: string; id: string; [field: string]: unknown };

/** `event` as the spec's ServerMessage, or undefined for one it has none for (a tool call's end
 * and result: the session's history holds them). */
function serverMessageOf(event: ExecutionEvent, id: string, executionId: string): Outgoing | undefined {
  const common = { id, execution_id: executionId };
  switch (event.type) {
    case "text":
    case "thinking":
      return { type: event.type, ...common, content: event.content };
    case "tool_call_start":
      return { type: "tool_call", ...common, tool: event.name, input: event.input, tool_call_id: event.id };
    case "artifact":
      return { type: "artifact", ...common, name: event.name, mime_type: event.mime_type, artifact_id: event.id, size_bytes: event.size_bytes };
    case "error":
      return { type: "error", ...common, code: event.code, message: event.message };
    case "done":
      return { type: "done", ...common, usage: event.usage };
    default:
      return undefined;
  }
}

export function attachConnectSocket(oh: OpenHarness, ws: WebSocket, userId: string, sessionId: string): void {
  /** The executions this socket's messages started, by the message's id: `live` until it has
   * ended and all its events are sent, then only its id and how it ended (a long-lived socket does
   * not hold every run's events). */
  const runs = new Map<string, { executionId: string; live?: Execution; status?: string; stop: () => void }>();
  /** Forgets the run of message `id` but for its id and how it ended. */
  function ended(id: string, execution: Execution): void {
    runs.delete(id);
    runs.set(id, { executionId: execution.id, status: execution.watch.status, stop: () => {} });
    const over = [...runs.values()].filter((run) => !run.live).length - MAX_ENDED;
    if (over > 0) for (const [key] of [...runs].filter(([, run]) => !run.live).slice(0, over)) runs.delete(key);
  }
  const send = (message: Outgoing) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) return ws.terminate();
    ws.send(JSON.stringify(message));
  };
  const refuse = (id: string, code: string, message: string) => send({ type: "error", id, code, message });

  /** Sends `execution`'s events from the first on, and a prompt for each call it comes to wait for. */
  function follow(id: string, execution: Execution): () => void {
    let next = 0;
    const prompted = new Set<string>();
    const listener = () => {
      while (next < execution.events.length) {
        const message = serverMessageOf(execution.events[next++], id, execution.id);
        if (message) send(message);
      }
      for (const call of execution.watch.awaiting()) {
        if (prompted.has(call.toolCallId)) continue;
        prompted.add(call.toolCallId);
        send({ type: "prompt", id, execution_id: execution.id, tool_call_id: call.toolCallId, prompt: `${call.toolName}: ${call.description} (answer yes or no)` });
      }
      if (allEventsOut(execution) && next >= execution.events.length) {
        stop();
        if (runs.get(id)?.live === execution) ended(id, execution);
      }
    };
    const stop = () => execution.listeners.delete(listener);
    execution.listeners.add(listener);
    listener();
    return stop;
  }

  /** The ids of the messages whose executions are being started. */
  const starting = new Set<string>();

  async function start(id: string, content: string): Promise<void> {
    if (starting.has(id) || runs.get(id)?.live?.watch.finished === false) return refuse(id, "duplicate_id", `message "${id}" is still running: give each message an id of its own`);
    starting.add(id);
    try {
      await startNow(id, content);
    } finally {
      starting.delete(id);
    }
  }

  async function startNow(id: string, content: string): Promise<void> {
    if (!(await oh.sessionExists(userId, sessionId))) {
      refuse(id, "session_not_found", `no session "${sessionId}": it was deleted`);
      return ws.close(SESSION_DELETED_CLOSE, "the session was deleted");
    }
    let execution: Execution;
    try {
      execution = await oh.executions.start(userId, sessionId, content);
    } catch (error) {
      return refuse(id, "execution_failed", (error as Error).message);
    }
    const run = { executionId: execution.id, live: execution, stop: () => {} };
    runs.delete(id);
    runs.set(id, run);
    run.stop = follow(id, execution);
    // A session deleted under its run: the channel closes, as the spec has it for an ended session.
    void execution.ended.then(async () => {
      if (execution.watch.status === "failed" && !(await oh.sessionExists(userId, sessionId))) ws.close(SESSION_DELETED_CLOSE, "the session was deleted");
    });
  }

  function input(id: string, data: string): void {
    const run = runs.get(id);
    if (!run) return refuse(id, "not_found", `no message "${id}" was sent on this connection`);
    const execution = run.live;
    if (!execution || execution.watch.finished) return refuse(id, "execution_finished", `the run of message "${id}" has already ended (${execution?.watch.status ?? run.status})`);
    const [waitsFor] = execution.watch.awaiting();
    if (!waitsFor) return refuse(id, "not_waiting", `the run of message "${id}" is not waiting for input`);
    const answer = data.trim();
    if (!YES.test(answer) && !NO.test(answer)) return refuse(id, "invalid_input", `answer yes or no to ${waitsFor.toolName}: ${waitsFor.description}`);
    execution.answer(waitsFor.toolCallId, YES.test(answer));
  }

  function cancel(executionId: string): void {
    const mine = runs.get(executionId) ?? [...runs.values()].find((run) => run.executionId === executionId);
    const execution = mine?.live ?? oh.executions.get(userId, mine?.executionId ?? executionId);
    if (!execution || execution.sessionId !== sessionId) return refuse(executionId, "execution_not_found", `no execution "${executionId}" of this session`);
    if (!execution.cancel()) refuse(executionId, "execution_finished", `execution "${execution.id}" has already ended (${execution.watch.status})`);
  }

  ws.on("message", (data, binary) => {
    if (binary) return refuse("", "invalid_message", "binary frames are not taken: send each message as JSON text");
    let parsed: unknown;
    try {
      parsed = JSON.parse(frameText(data));
    } catch {
      return refuse("", "invalid_message", "a message is JSON text: this is not JSON");
    }
    const checked = ClientMessage.safeParse(parsed);
    const given = (parsed as { id?: unknown; execution_id?: unknown } | null) ?? {};
    const id = typeof given.id === "string" ? given.id : typeof given.execution_id === "string" ? given.execution_id : "";
    if (!checked.success) return refuse(id, "invalid_message", describeZodError(checked.error, "message"));
    const message = checked.data;
    if (message.type === "message") void start(message.id, message.content);
    else if (message.type === "stdin") input(message.id, message.data);
    else cancel(message.execution_id);
  });
  // A session deleted while the channel is open closes it at once, as the spec has it for an ended session.
  const unsubscribe = oh.events.subscribe((user, event) => {
    if (user !== userId || event.type !== "session.ended" || event.data.session_id !== sessionId) return;
    refuse("", "session_not_found", `no session "${sessionId}": it was deleted`);
    ws.close(SESSION_DELETED_CLOSE, "the session was deleted");
  });
  ws.on("close", () => {
    unsubscribe();
    for (const run of runs.values()) run.stop();
  });
  ws.on("error", () => {});
}
