// The control protocol of `harness run --input-format stream-json`, as Claude Code speaks it with
// the Claude Agent SDK. Besides user messages, standard input carries `control_request` lines
// ({"type":"control_request","request_id":…,"request":{"subtype":…}}), each answered on stdout by a
// `control_response` with the same request_id, {"subtype":"success","response":{…}} or
// {"subtype":"error","error":"…"}; and the run asks requests of its own (can_use_tool), which the
// other end answers with `control_response` lines on standard input. Lines are read as they come,
// while a turn runs, so that an interrupt or an answer reaches the turn under way.
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { isJsonObject } from "@harness/agent/json-text";
import { parseInputLine, type InputLine } from "./input.ts";

export type ControlRequest = { subtype: string; [field: string]: unknown };

/** Answers a request: the success's `response`; a throw is the error response, with its message.
 * `messagesBefore`: how many user messages came before it on the input. */
export type ControlHandler = (request: ControlRequest, messagesBefore: number) => Promise<Record<string, unknown>> | Record<string, unknown>;

export type ControlChannel = {
  /** The user messages, in order, as they come. A line that is neither a message nor a control line
   * is given as a failure, and reading stops there. */
  messages: AsyncIterable<InputLine>;
  /** Sends a request to the other end; settles with its success's response, or rejects with its
   * error, or when `signal` aborts (the request is then withdrawn with a control_cancel_request), or
   * when the input ends unanswered. */
  ask(request: ControlRequest, signal?: AbortSignal): Promise<Record<string, unknown>>;
};

/** Lines the other end may send that carry nothing for the run: keep-alives, and the withdrawal of a
 * request it made (every request here is answered at once). */
const IGNORED = new Set(["keep_alive", "control_cancel_request", "update_environment_variables"]);

/** Reading stops once `signal` is aborted (a stop while the run waits for the next message), even
 * while it waits for a line that never comes. */
export function controlChannel(input: Readable, write: (line: string) => void, handle: ControlHandler, signal?: AbortSignal): ControlChannel {
  const queue: InputLine[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const pending = new Map<string, { resolve: (response: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  /** The user messages read so far. */
  let received = 0;
  const send = (value: unknown) => write(`${JSON.stringify(value)}\n`);
  const push = (line: InputLine) => {
    queue.push(line);
    wake?.();
  };
  const answer = (id: string, request: ControlRequest) => {
    const messagesBefore = received;
    Promise.resolve()
      .then(() => handle(request, messagesBefore))
      .then(
        (response) => send({ type: "control_response", response: { subtype: "success", request_id: id, response } }),
        (error: unknown) => send({ type: "control_response", response: { subtype: "error", request_id: id, error: error instanceof Error ? error.message : String(error) } }),
      );
  };

  const read = async () => {
    if (signal?.aborted) return;
    const lines = createInterface({ input, crlfDelay: Infinity });
    const stop = () => lines.close();
    signal?.addEventListener("abort", stop, { once: true });
    let number = 0;
    try {
      for await (const line of lines) {
        number++;
        // A byte order mark (as some Windows tools write before their text) is no part of the JSON.
        const text = number === 1 && line.startsWith("\uFEFF") ? line.slice(1) : line;
        if (text.trim() === "") continue;
        const value = parseObject(text);
        const type = value?.type;
        if (type === "control_request" && typeof value!.request_id === "string") {
          const request = value!.request;
          if (isJsonObject(request) && typeof request.subtype === "string") answer(value!.request_id, request as ControlRequest);
          else send({ type: "control_response", response: { subtype: "error", request_id: value!.request_id, error: 'a control request needs a "request" with a "subtype"' } });
          continue;
        }
        if (type === "control_response" && isJsonObject(value!.response)) {
          settle(value!.response);
          continue;
        }
        if (typeof type === "string" && IGNORED.has(type)) continue;
        const message = parseInputLine(text, number);
        if (message.ok) received++;
        push(message);
        if (!message.ok) return;
      }
    } finally {
      signal?.removeEventListener("abort", stop);
      lines.close();
      ended = true;
      wake?.();
      for (const [id, waiting] of pending) {
        pending.delete(id);
        waiting.reject(new Error("standard input ended before the answer came"));
      }
    }
  };

  const settle = (response: Record<string, unknown>) => {
    const id = response.request_id;
    const waiting = typeof id === "string" ? pending.get(id) : undefined;
    if (!waiting) return;
    pending.delete(id as string);
    if (response.subtype === "success") waiting.resolve(isJsonObject(response.response) ? response.response : {});
    else waiting.reject(new Error(typeof response.error === "string" ? response.error : "the request failed"));
  };

  const reading = read();
  reading.catch((error: Error) => push({ ok: false, message: `standard input could not be read: ${error.message}` }));

  return {
    messages: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = queue.shift();
          if (next) {
            yield next;
            if (!next.ok) return;
            continue;
          }
          if (ended) return;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      },
    },
    ask(request, signal) {
      if (ended) return Promise.reject(new Error("standard input has ended: nobody is there to answer"));
      if (signal?.aborted) return Promise.reject(new Error("withdrawn"));
      const id = `harness-${process.pid}-${++nextId}`;
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          if (!pending.delete(id)) return;
          send({ type: "control_cancel_request", request_id: id });
          reject(new Error("withdrawn"));
        };
        pending.set(id, {
          resolve: (response) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(response);
          },
          reject: (error) => {
            signal?.removeEventListener("abort", onAbort);
            reject(error);
          },
        });
        signal?.addEventListener("abort", onAbort, { once: true });
        send({ type: "control_request", request_id: id, request });
      });
    },
  };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
