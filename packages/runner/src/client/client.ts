// Client of the RunnerProtocol. It uses no node: modules, and by default speaks HTTP with fetch, so
// that any host — Node, a Worker, a Durable Object — can drive a runner; a Node host passes
// nodeTransport() for a cheaper event stream.
import {
  createSseParser,
  describeZodError,
  HISTORY_GONE_STATUS,
  isRunEnd,
  KEEP_RUNNING_HEADER,
  RewindResultSchema,
  RunnerEventSchema,
  RunnerHealthSchema,
  RunnerMcpProbeResultSchema,
  RunnerShellsSchema,
  SHELLS_AFTER_HEADER,
  ShellKilledSchema,
  type RewindResult,
  type RunControl,
  type RunEndEvent,
  type RunnerEvent,
  type RunnerHealth,
  type RunnerMcpProbe,
  type RunnerMcpProbeResult,
  type RunnerQuery,
  type RunnerShells,
  type RunnerToolCall,
  type SessionEndReason,
  type TranscriptMessage,
  type WorkspaceOpenBody,
} from "@harness/protocol";
import { fetchTransport, type RunnerTransport, type TransportRequest, type TransportResponse } from "./transport.ts";

export type { RunnerTransport };

/** The runner answered with a status other than 200; `message` is the runner's `error` text. */
export class RunnerHttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "RunnerHttpError";
    this.status = status;
  }
}

export type RunnerClient = {
  health(signal?: AbortSignal): Promise<RunnerHealth>;
  /** Starts a run and yields its events, ending after run.completed or run.error. Throws
   * RunnerHttpError for a refused query, an Error when the stream ends before the run finished, and
   * the signal's reason when aborted. Aborting the signal, or leaving the loop early, closes the
   * request, which cancels the run — unless `keepRunning`: then only control(cancel) stops it.
   *
   * A body with both `history` and `historyId` (the id of the transcript a run on this runner left,
   * which `history` equals) is sent with the id alone, and again with the history when the runner
   * no longer keeps it. A body with `history` asks for only the added messages back; the run's last
   * event is handed over with its transcript whole all the same. */
  query(body: RunnerQuery, opts: { signal: AbortSignal; keepRunning?: boolean }): AsyncIterable<RunnerEvent>;
  /** Re-attaches to a run: its events after `afterSeq`, then live, ending like query(). Leaving
   * early does not cancel the run. RunnerHttpError 404: the runner does not know the run; 410: the
   * events after `afterSeq` are no longer all kept. */
  events(requestId: string, opts: { afterSeq: number; signal: AbortSignal }): AsyncIterable<RunnerEvent>;
  /** POST /runs/:requestId/<action>; throws RunnerHttpError when refused. */
  control(requestId: string, control: RunControl, signal?: AbortSignal): Promise<void>;
  /** POST /tools/invoke: one tool call made directly, its events ending like query()'s. Throws
   * RunnerHttpError when refused (404 no such tool, 400 bad input, 409 busy). Aborting the signal, or
   * leaving the loop early, closes the request, which stops the call. */
  invokeTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncIterable<RunnerEvent>;
  /** POST /mcp/probe: the MCP servers a run would start, started, asked and stopped. Throws
   * RunnerHttpError when refused (409 busy, 422 configuration refused, 501 backend, 504 too long). */
  probeMcp(body: RunnerMcpProbe, signal: AbortSignal): Promise<RunnerMcpProbeResult>;
  /** POST /rewind; throws RunnerHttpError when refused (404 no checkpoint, 409 busy, 422 ignored files in the way, 501 no git). */
  rewind(body: { userMessageId: string; dryRun?: boolean }, signal?: AbortSignal): Promise<RewindResult>;
  /** GET /shells: the conversation's background shells; with `after` (a version an answer gave),
   * once they differ from it, or the same version after the runner's wait (SHELLS_WAIT_MS). */
  shells(after: string | undefined, signal?: AbortSignal): Promise<RunnerShells>;
  /** POST /shells/kill: stops a background shell, run or no run; what it did, in words. Throws
   * RunnerHttpError when refused (404 no such shell, 409 not running). */
  killShell(shellId: string, signal?: AbortSignal): Promise<string>;
};

export type { RunControl };

/** Why a stream the caller stopped reading is closed: made once (a reasonless abort() makes a
 * DOMException, stack and all, every time). */
const STREAM_LEFT = new DOMException("the caller stopped reading the run's events", "AbortError");

const KNOWN_TYPES = new Set<string>(RunnerEventSchema.options.map((o) => o.shape.type.value));

export type RunnerClientOptions = {
  /** How HTTP is spoken (default fetch). */
  transport?: RunnerTransport;
  /** The runner's token (token.ts), sent with every request. */
  token?: string;
};

export function createRunnerClient(baseUrl: string, options: RunnerClientOptions = {}): RunnerClient {
  const base = baseUrl.replace(/\/+$/, "");
  const { transport = fetchTransport, token } = options;

  const request = (path: string, init: TransportRequest) => send(transport, base, path, authorized(init, token));

  async function health(signal?: AbortSignal): Promise<RunnerHealth> {
    const res = await request("/health", { method: "GET", signal });
    let body: unknown;
    try {
      body = JSON.parse(await res.text());
    } catch (err) {
      throw new Error(`runner sent a health answer that is not JSON: ${(err as Error).message}`);
    }
    const parsed = RunnerHealthSchema.safeParse(body);
    if (!parsed.success) throw new Error(`runner sent an invalid health answer: ${describeZodError(parsed.error)}`);
    return parsed.data;
  }

  async function* query(body: RunnerQuery, opts: { signal: AbortSignal; keepRunning?: boolean }): AsyncGenerator<RunnerEvent> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (opts.keepRunning) headers[KEEP_RUNNING_HEADER] = "1";
    const history = body.history;
    const post = (sent: RunnerQuery) => stream("/query", { method: "POST", headers, body: JSON.stringify(sent) }, opts.signal, history);
    if (history === undefined) return yield* post(body);
    const whole: RunnerQuery = { ...body, historyId: undefined, transcriptAdded: true };
    if (body.historyId === undefined) return yield* post(whole);
    // A refusal is thrown by the first step, before anything was yielded.
    const byId = post({ ...whole, history: undefined, historyId: body.historyId });
    let first: IteratorResult<RunnerEvent>;
    try {
      first = await byId.next();
    } catch (err) {
      if (err instanceof RunnerHttpError && err.status === HISTORY_GONE_STATUS) return yield* post(whole);
      throw err;
    }
    try {
      if (first.done) return;
      yield first.value;
      yield* byId;
    } finally {
      // A consumer that stops at the first event closes the request all the same.
      await byId.return(undefined);
    }
  }

  function invokeTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    const headers = { "content-type": "application/json", accept: "text/event-stream" };
    return stream("/tools/invoke", { method: "POST", headers, body: JSON.stringify(body) }, opts.signal);
  }

  function events(requestId: string, opts: { afterSeq: number; signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    const headers = { accept: "text/event-stream", "last-event-id": String(opts.afterSeq) };
    return stream(`/runs/${encodeURIComponent(requestId)}/events`, { method: "GET", headers }, opts.signal);
  }

  async function postJson(path: string, body: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const res = await request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
    try {
      return JSON.parse(await res.text());
    } catch (err) {
      throw new Error(`runner sent an answer to ${path} that is not JSON: ${(err as Error).message}`);
    }
  }

  async function control(requestId: string, c: RunControl, signal?: AbortSignal): Promise<void> {
    const { type, ...rest } = c;
    const body = c.type === "configure" ? c.config : rest;
    await postJson(`/runs/${encodeURIComponent(requestId)}/${type}`, body, signal);
  }

  async function rewind(body: { userMessageId: string; dryRun?: boolean }, signal?: AbortSignal): Promise<RewindResult> {
    const answer = await postJson("/rewind", body, signal);
    const parsed = RewindResultSchema.safeParse(answer);
    if (!parsed.success) throw new Error(`runner sent an invalid rewind result: ${describeZodError(parsed.error)}`);
    return parsed.data;
  }

  async function probeMcp(body: RunnerMcpProbe, signal: AbortSignal): Promise<RunnerMcpProbeResult> {
    const answer = await postJson("/mcp/probe", body, signal);
    const parsed = RunnerMcpProbeResultSchema.safeParse(answer);
    if (!parsed.success) throw new Error(`runner sent an invalid MCP probe result: ${describeZodError(parsed.error)}`);
    return parsed.data;
  }

  async function shells(after: string | undefined, signal?: AbortSignal): Promise<RunnerShells> {
    const res = await request("/shells", { method: "GET", ...(after !== undefined && { headers: { [SHELLS_AFTER_HEADER]: after } }), signal });
    let body: unknown;
    try {
      body = JSON.parse(await res.text());
    } catch (err) {
      throw new Error(`runner sent a list of shells that is not JSON: ${(err as Error).message}`);
    }
    const parsed = RunnerShellsSchema.safeParse(body);
    if (!parsed.success) throw new Error(`runner sent an invalid list of shells: ${describeZodError(parsed.error)}`);
    return parsed.data;
  }

  async function killShell(shellId: string, signal?: AbortSignal): Promise<string> {
    const parsed = ShellKilledSchema.safeParse(await postJson("/shells/kill", { shellId }, signal));
    if (!parsed.success) throw new Error(`runner sent an invalid answer to a kill: ${describeZodError(parsed.error)}`);
    return parsed.data.message;
  }

  /** `history`: what the query sent (or named), to restore a last event's whole transcript. */
  async function* stream(path: string, init: Omit<TransportRequest, "signal">, outer: AbortSignal, history?: TranscriptMessage[]): AsyncGenerator<RunnerEvent> {
    // Aborted when the consumer stops early, so that the request does not stay open.
    const local = new AbortController();
    const signal = AbortSignal.any([outer, local.signal]);
    let finished = false;
    try {
      const res = await request(path, { ...init, signal });
      const chunks = res.chunks();
      const pending: RunnerEvent[] = [];
      const parser = createSseParser((message) => {
        const event = parseEvent(message.data);
        if (event) pending.push(event);
      });
      for (;;) {
        let chunk: IteratorResult<string>;
        try {
          chunk = await chunks.next();
        } catch (err) {
          if (outer.aborted) throw outer.reason;
          throw new Error(`runner stream broke: ${(err as Error).message}`, { cause: err });
        }
        if (chunk.done) break;
        parser.push(chunk.value);
        for (let i = 0; i < pending.length; i++) {
          const event = pending[i];
          if (isRunEnd(event)) {
            // The answer is let go of before its last event is handed over: whoever reads it may
            // abort the signal at once (the run is over), which must not cut a connection that
            // goes back to the pool once the end of the body arrives.
            finished = true;
            res.cancel();
            yield wholeTranscript(event, history);
            return;
          }
          yield event;
          if (outer.aborted) throw outer.reason;
        }
        pending.length = 0;
      }
      throw new Error("runner stream ended before the run finished");
    } finally {
      if (!finished) local.abort(STREAM_LEFT);
    }
  }

  return { health, query, events, invokeTool, probeMcp, control, rewind, shells, killShell };
}

/** The base URL of workspace `id` of the runner host at `hostUrl`: a RunnerClient made with it
 * drives that workspace's runs. */
export function workspaceUrl(hostUrl: string, id: string): string {
  return `${hostUrl.replace(/\/+$/, "")}/workspaces/${encodeURIComponent(id)}`;
}

/** Opens workspace `id` on the runner host at `hostUrl` (PUT /workspaces/:id) and returns its base
 * URL. Throws RunnerHttpError when refused (409: the id is open for another workspace). */
export async function openWorkspace(hostUrl: string, id: string, body: WorkspaceOpenBody, options: HostRequestOptions = {}): Promise<string> {
  await hostRequest(options, hostUrl, id, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return workspaceUrl(hostUrl, id);
}

/** Closes workspace `id` (DELETE /workspaces/:id), cancelling its run in flight and ending its
 * conversation for `reason` (what its SessionEnd hooks are told; default "other"). False when the
 * host did not have it open. */
export async function closeWorkspace(hostUrl: string, id: string, options: HostRequestOptions & { reason?: SessionEndReason } = {}): Promise<boolean> {
  const { reason, ...rest } = options;
  const init: TransportRequest = reason ? { method: "DELETE", headers: { "content-type": "application/json" }, body: JSON.stringify({ reason }) } : { method: "DELETE" };
  try {
    await hostRequest(rest, hostUrl, id, init);
    return true;
  } catch (err) {
    if (err instanceof RunnerHttpError && err.status === 404) return false;
    throw err;
  }
}

export type HostRequestOptions = RunnerClientOptions & { signal?: AbortSignal };

async function hostRequest(options: HostRequestOptions, hostUrl: string, id: string, init: TransportRequest): Promise<void> {
  const request = authorized(options.signal ? { ...init, signal: options.signal } : init, options.token);
  const res = await send(options.transport ?? fetchTransport, workspaceUrl(hostUrl, id), "", request);
  res.cancel();
}

function authorized(init: TransportRequest, token: string | undefined): TransportRequest {
  return token ? { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } } : init;
}

/** base + path, with "cannot reach" errors naming the runner and non-200 answers thrown as
 * RunnerHttpError. */
async function send(transport: RunnerTransport, base: string, path: string, init: TransportRequest): Promise<TransportResponse> {
  let res: TransportResponse;
  const signal = init.signal;
  try {
    res = await transport(base + path, init);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw new Error(`cannot reach the runner at ${base}: ${cause}`, { cause: err });
  }
  if (res.status !== 200) throw await httpError(res);
  return res;
}

/** `event` with its transcript whole: one that holds only the messages after the query's history
 * (`transcriptFrom`) gets the history put back in front. */
function wholeTranscript(event: RunEndEvent, history: TranscriptMessage[] | undefined): RunEndEvent {
  const from = event.transcriptFrom;
  if (from === undefined) return event;
  if (!history || from > history.length) {
    throw new Error(`runner sent a ${event.type} whose transcript starts after message ${from}, but the query sent ${history ? `${history.length} messages of history` : "no history"}`);
  }
  const { transcriptFrom: _from, ...rest } = event;
  return { ...rest, transcript: history.slice(0, from).concat(event.transcript ?? []) };
}

/** The events of a whole SSE text, as a runner streams them (unknown event types left out). */
export function eventsOfSse(text: string): RunnerEvent[] {
  const events: RunnerEvent[] = [];
  const parser = createSseParser((message) => {
    const event = parseEvent(message.data);
    if (event) events.push(event);
  });
  parser.push(text);
  return events;
}

function parseEvent(data: string): RunnerEvent | undefined {
  let raw: { type?: unknown; seq?: unknown; text?: unknown; agentId?: unknown; parentToolUseId?: unknown };
  try {
    raw = JSON.parse(data);
  } catch {
    throw new Error(`runner sent an event that is not JSON: ${data.slice(0, 200)}`);
  }
  if (raw === null || typeof raw !== "object") throw new Error(`runner sent an event that is not an object: ${data.slice(0, 200)}`);
  // The hot path: main-agent text and thinking deltas are checked by hand; every other event goes
  // through the schema.
  if (
    (raw.type === "assistant.delta" || raw.type === "assistant.thinking") &&
    typeof raw.text === "string" &&
    typeof raw.seq === "number" &&
    raw.agentId === undefined &&
    raw.parentToolUseId === undefined
  ) {
    return raw as RunnerEvent;
  }
  // Event types added to the protocol later are skipped, not fatal.
  if (typeof raw.type !== "string" || !KNOWN_TYPES.has(raw.type)) return undefined;
  const parsed = RunnerEventSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`runner sent an invalid ${raw.type} event: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

async function httpError(res: TransportResponse): Promise<RunnerHttpError> {
  let text = "";
  try {
    text = await res.text();
  } catch {
    // The body is only used for the message.
  }
  let message = text.slice(0, 500) || `runner answered HTTP ${res.status}`;
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "string") message = body.error;
  } catch {
    // Not JSON: keep the raw text.
  }
  return new RunnerHttpError(res.status, message);
}
