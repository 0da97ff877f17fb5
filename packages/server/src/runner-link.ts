// The RunnerProtocol over HTTP, for runs that outlive the server: queries are sent with
// `x-harness-keep-running: 1`, so closing the request no longer cancels the run — cancelling is an
// explicit POST /runs/:id/cancel, made when the caller aborts. A run whose stream broke, or whose
// server restarted, is re-attached to with GET /runs/:id/events and Last-Event-ID.
import {
  describeZodError,
  KEEP_RUNNING_HEADER,
  RewindResultSchema,
  RunnerEventSchema,
  type RewindResult,
  type RunnerEvent,
  type RunnerQuery,
} from "@harness/protocol";
import type { RunControl, RunnerAnswer } from "@harness/session";

/** How long a cancelled run's stream is read on, waiting for the run's id so it can be cancelled. */
const CANCEL_WAIT_MS = 30_000;

const KNOWN_TYPES = new Set<string>(RunnerEventSchema.options.map((o) => o.shape.type.value));

function unreachable(base: string, error: unknown): string {
  const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
  return `cannot reach the runner at ${base}: ${cause}`;
}

async function errorText(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "string") return body.error;
  } catch {
    // Not JSON: the raw text says it.
  }
  return text.slice(0, 500) || `runner answered HTTP ${res.status}`;
}

/** A refusal from the runner, with its HTTP status. */
export class RunnerRefusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "RunnerRefusal";
    this.status = status;
  }
}

function parseEvent(data: string): RunnerEvent | undefined {
  let raw: { type?: unknown; seq?: unknown; text?: unknown; agentId?: unknown; parentToolUseId?: unknown };
  try {
    raw = JSON.parse(data);
  } catch {
    throw new Error(`runner sent an event that is not JSON: ${data.slice(0, 200)}`);
  }
  if (raw === null || typeof raw !== "object") throw new Error(`runner sent an event that is not an object: ${data.slice(0, 200)}`);
  // The hot path: main-agent text deltas are checked by hand; every other event goes through the schema.
  if (raw.type === "assistant.delta" && typeof raw.text === "string" && typeof raw.seq === "number" && raw.agentId === undefined && raw.parentToolUseId === undefined) {
    return raw as RunnerEvent;
  }
  // Event types added to the protocol later are skipped, not fatal.
  if (typeof raw.type !== "string" || !KNOWN_TYPES.has(raw.type)) return undefined;
  const parsed = RunnerEventSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`runner sent an invalid ${raw.type} event: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/** Splits text/event-stream text into the `data` of each event (lines `data:`, events ended by a
 * blank line; `id:`, `event:` and comments carry nothing the events do not). */
function sseData(): (chunk: string, out: string[]) => void {
  let rest = "";
  let data: string[] = [];
  return (chunk, out) => {
    const text = rest + chunk;
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) break;
      let line = text.slice(start, nl);
      start = nl + 1;
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line === "") {
        if (data.length) out.push(data.join("\n"));
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
    }
    rest = text.slice(start);
  };
}

type Stream = { reader: ReadableStreamDefaultReader<Uint8Array>; requestId?: string };

/** Yields the events of an SSE response until the run ends. When `signal` aborts, the consumer
 * gets its reason at once and the run is cancelled in the background. */
function whenAborted(signal: AbortSignal): Promise<"aborted"> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
}

async function* events(base: string, stream: Stream, signal: AbortSignal, stop: () => void, aborted: Promise<"aborted">): AsyncGenerator<RunnerEvent> {
  const decoder = new TextDecoder();
  const split = sseData();
  const datas: string[] = [];
  let finished = false;
  let next: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  try {
    for (;;) {
      next = stream.reader.read();
      const chunk = await Promise.race([next, aborted]);
      if (chunk === "aborted") throw signal.reason;
      next = undefined;
      split(chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true }), datas);
      for (let i = 0; i < datas.length; i++) {
        const event = parseEvent(datas[i]);
        if (!event) continue;
        if (event.type === "run.started") stream.requestId = event.requestId;
        // Set before yielding: a consumer that stops reading after the last event must not cancel.
        if (event.type === "run.completed" || event.type === "run.error") finished = true;
        yield event;
        if (finished) return;
        if (signal.aborted) throw signal.reason;
      }
      datas.length = 0;
      if (chunk.done) throw new Error("runner stream ended before the run finished");
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof Error && error.message.startsWith("runner ")) throw error;
    throw new Error(`runner stream broke: ${(error as Error).message}`, { cause: error });
  } finally {
    if (finished || !signal.aborted) stop();
    else void cancelInBackground(base, stream, next, stop);
  }
}

/** Cancels an aborted run: at once when its id is known, else once run.started arrives. */
async function cancelInBackground(base: string, stream: Stream, pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined, stop: () => void): Promise<void> {
  const deadline = setTimeout(stop, CANCEL_WAIT_MS);
  try {
    const decoder = new TextDecoder();
    const split = sseData();
    const datas: string[] = [];
    while (!stream.requestId) {
      const chunk = await (pending ?? stream.reader.read());
      pending = undefined;
      split(chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true }), datas);
      for (const data of datas) {
        const event = parseEvent(data);
        if (event?.type === "run.started") stream.requestId = event.requestId;
      }
      datas.length = 0;
      if (chunk.done) break;
    }
    if (stream.requestId) await postControl(base, stream.requestId, { type: "cancel" });
  } catch {
    // The stream or the runner went away: nothing is left to cancel.
  } finally {
    clearTimeout(deadline);
    stop();
  }
}

async function open(base: string, path: string, init: RequestInit): Promise<{ stream: Stream; stop: () => void }> {
  const local = new AbortController();
  let res: Response;
  try {
    res = await fetch(base + path, { ...init, signal: local.signal });
  } catch (error) {
    throw new Error(unreachable(base, error), { cause: error });
  }
  if (res.status !== 200) throw new RunnerRefusal(res.status, await errorText(res));
  if (!res.body) throw new Error("runner sent no event stream");
  const reader = res.body.getReader();
  return { stream: { reader }, stop: () => local.abort() };
}

/** POST /query with keep-running. Aborting `signal` cancels the run, even before it answered. */
export async function* queryRun(base: string, body: RunnerQuery, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
  const { signal } = opts;
  if (signal.aborted) throw signal.reason;
  const aborted = whenAborted(signal);
  const opening = open(base, "/query", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", [KEEP_RUNNING_HEADER]: "1" },
    body: JSON.stringify(body),
  });
  const first = await Promise.race([opening, aborted]);
  if (first === "aborted") {
    // The runner may have started the run already: it is cancelled once it says which run it is.
    opening.then(
      ({ stream, stop }) => cancelInBackground(base, stream, undefined, stop),
      () => {},
    );
    throw signal.reason;
  }
  yield* events(base, first.stream, signal, first.stop, aborted);
}

/** GET /runs/:id/events after `afterSeq`. Throws RunnerRefusal 404 when the runner does not know the
 * run, and an Error when it cannot be reached. Aborting `signal` cancels the run. */
export async function* attachRun(base: string, requestId: string, afterSeq: number, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
  if (opts.signal.aborted) throw opts.signal.reason;
  const { stream, stop } = await open(base, `/runs/${encodeURIComponent(requestId)}/events`, {
    method: "GET",
    headers: { accept: "text/event-stream", "last-event-id": String(afterSeq) },
  });
  stream.requestId = requestId;
  yield* events(base, stream, opts.signal, stop, whenAborted(opts.signal));
}

async function postJson(base: string, path: string, body: unknown): Promise<RunnerAnswer<unknown>> {
  let res: Response;
  try {
    res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    return { ok: false, message: unreachable(base, error) };
  }
  if (res.status !== 200) return { ok: false, status: res.status, message: await errorText(res) };
  try {
    return { ok: true, value: await res.json() };
  } catch (error) {
    return { ok: false, status: res.status, message: `runner sent an answer that is not JSON: ${(error as Error).message}` };
  }
}

/** POST /runs/:id/{approve,deny,steer,cancel,configure}. */
export async function postControl(base: string, requestId: string, control: RunControl): Promise<RunnerAnswer<undefined>> {
  const path = `/runs/${encodeURIComponent(requestId)}/${control.type}`;
  const body =
    control.type === "approve" ? { toolUseId: control.toolUseId }
    : control.type === "deny" ? { toolUseId: control.toolUseId, ...(control.reason !== undefined ? { reason: control.reason } : {}) }
    : control.type === "steer" ? { message: control.message }
    : control.type === "configure" ? control.config
    : {};
  const answer = await postJson(base, path, body);
  return answer.ok ? { ok: true, value: undefined } : answer;
}

/** POST /rewind. */
export async function postRewind(base: string, request: { userMessageId: string; dryRun: boolean }): Promise<RunnerAnswer<RewindResult>> {
  const answer = await postJson(base, "/rewind", request);
  if (!answer.ok) return answer;
  const parsed = RewindResultSchema.safeParse(answer.value);
  if (!parsed.success) return { ok: false, message: `runner sent an invalid rewind result: ${describeZodError(parsed.error)}` };
  return { ok: true, value: parsed.data };
}
