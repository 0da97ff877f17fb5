// The suite's execution tests, run only when a request names their category (they run prompts on
// the model, which costs the deployment's tokens): in the scratch session, a tiny prompt executed as
// a client would, its stream, status, listing and result read back; and a longer one cancelled while
// it runs. Each step is bounded: one that does not answer in time fails the test, naming the step.
import { ensure, expectStatus, type LoopbackApi } from "./client.ts";
import type { ConformanceTest } from "./types.ts";

/** The prompt whose run is checked: as short to answer as a prompt can be. */
export const PROMPT = "Reply with the single word: ok";
/** The prompt cancelled while it runs: long enough to answer that it is still running when cancelled. */
export const LONG_PROMPT = "Count from 1 to 500, one number a line, with nothing else.";

export type ExecutionTimeouts = {
  /** A prompt's run, from its start to the end of its stream (the runner may be started first). */
  runMs: number;
  /** Any other request. */
  requestMs: number;
  /** The long prompt, to be seen running. */
  startMs: number;
  /** Between two looks at the long prompt's status. */
  pollMs: number;
};

const TIMEOUTS: ExecutionTimeouts = { runMs: 180_000, requestMs: 30_000, startMs: 60_000, pollMs: 200 };

type Event = Record<string, unknown> & { type?: unknown };
type Usage = { input_tokens: number; output_tokens: number; total_tokens: number };

/** `work()`'s answer; its failure an Error that says which step it was. */
async function step<T>(what: string, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`);
  }
}

/** The data of each event of an SSE body, parsed; an Error naming one that is not a JSON object. */
export function sseData(text: string): Event[] {
  const events: Event[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trim())
      .join("\n");
    if (data === "") continue;
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      throw new Error(`event ${events.length + 1} is not JSON: ${data.slice(0, 200)}`);
    }
    ensure(event !== null && typeof event === "object" && typeof (event as Event).type === "string", `event ${events.length + 1} has no type: ${data.slice(0, 200)}`);
    events.push(event as Event);
  }
  return events;
}

/** `usage` when it gives its three token counts as numbers not below 0, some tokens counted. */
function usageOf(usage: unknown, where: string): Usage {
  const u = usage as Partial<Usage> | undefined;
  const counts = [u?.input_tokens, u?.output_tokens, u?.total_tokens];
  ensure(counts.every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0), `${where} has no usage numbers (input_tokens, output_tokens, total_tokens): ${JSON.stringify(usage)}`);
  ensure((u!.total_tokens as number) > 0, `${where} counts no tokens: ${JSON.stringify(usage)}`);
  return u as Usage;
}

/** A run's events, well-formed and in order: text, then done with usage, last and once; none an error. */
function checkEvents(events: Event[], what: string): { text: string; usage: Usage } {
  const error = events.find((event) => event.type === "error");
  ensure(!error, `${what} sent an error: ${JSON.stringify(error)}`);
  const types = events.map((event) => String(event.type));
  const shown = types.join(", ") || "no events";
  ensure(types.at(-1) === "done" && types.indexOf("done") === types.length - 1, `${what} does not end with one done event (${shown})`);
  const texts = events.filter((event) => event.type === "text");
  ensure(texts.length > 0, `${what} sent no text event before done (${shown})`);
  ensure(texts.every((event) => typeof event.content === "string"), `${what} sent a text event without its content: ${JSON.stringify(texts.find((event) => typeof event.content !== "string"))}`);
  const text = texts.map((event) => event.content).join("");
  ensure(text.trim() !== "", `${what} sent only empty text`);
  return { text, usage: usageOf(events.at(-1)!.usage, `${what}'s done event`) };
}

/** Whether the user's completed executions list `id`, read page by page. */
async function listsCompleted(api: LoopbackApi, id: string, requestMs: number): Promise<boolean> {
  for (let offset = 0; ; offset += 100) {
    const page = expectStatus(await api.call("GET", `/executions?status=completed&limit=100&offset=${offset}`, { timeoutMs: requestMs }), 200).json;
    ensure(Array.isArray(page?.data), `GET /executions answered no data list: ${JSON.stringify(page).slice(0, 200)}`);
    if (page.data.some((e: { id?: unknown }) => e.id === id)) return true;
    if (!page.has_more) return false;
  }
}

/** The execution tests, their steps bounded by `timeouts`. */
export function executionTests(timeouts: ExecutionTimeouts = TIMEOUTS): ConformanceTest[] {
  const { runMs, requestMs } = timeouts;
  return [
    {
      id: "execution.prompt",
      name: "a prompt runs: its stream sends text then done with usage, and the execution is listed completed, read by its id, its result its output and usage",
      category: "execution",
      slow: true,
      async run({ api, sessionId }) {
        const streamed = await step("streaming the prompt (POST /execute/stream)", async () =>
          expectStatus(await api.call("POST", "/execute/stream", { json: { message: PROMPT, session_id: sessionId }, timeoutMs: runMs }), 200),
        );
        ensure(/text\/event-stream/.test(streamed.headers.get("content-type") ?? ""), `POST /execute/stream answered ${streamed.headers.get("content-type")}, not text/event-stream`);
        const id = streamed.headers.get("x-execution-id");
        ensure(id, "POST /execute/stream answered no x-execution-id header naming its execution");
        const { usage } = checkEvents(sseData(streamed.text), "the prompt's stream");
        const got = await step("reading the execution (GET /executions/:id)", async () => expectStatus(await api.call("GET", `/executions/${encodeURIComponent(id)}`, { timeoutMs: requestMs }), 200).json);
        const execution = got?.execution;
        ensure(execution?.id === id, `GET /executions/${id} answered another execution: ${JSON.stringify(got).slice(0, 200)}`);
        ensure(execution.status === "completed", `GET /executions/${id} says its status is ${JSON.stringify(execution.status)}, not completed, after its stream ended`);
        ensure(execution.session_id === sessionId, `GET /executions/${id} says it ran in session ${JSON.stringify(execution.session_id)}, not ${sessionId}`);
        const listed = await step("listing the executions (GET /executions)", () => listsCompleted(api, id, requestMs));
        ensure(listed, `GET /executions?status=completed does not list the execution ${id}`);
        const answered = await step("reading the result (GET /executions/:id/result)", async () => expectStatus(await api.call("GET", `/executions/${encodeURIComponent(id)}/result`, { timeoutMs: requestMs }), 200).json);
        const result = answered?.result;
        ensure(result?.execution_id === id && result.status === "completed", `GET /executions/${id}/result answered ${JSON.stringify(answered).slice(0, 200)}`);
        ensure(typeof result.output === "string" && result.output.trim() !== "", `the result's output is empty: ${JSON.stringify(result.output)}`);
        const kept = usageOf(result.usage, "the result");
        ensure(JSON.stringify(kept) === JSON.stringify(usage), `the result's usage ${JSON.stringify(kept)} is not what the stream's done event said: ${JSON.stringify(usage)}`);
      },
    },
    {
      id: "execution.cancel",
      name: "a longer prompt cancelled while it runs ends: its stream ends with done, its status is cancelled",
      category: "execution",
      slow: true,
      async run({ api, sessionId }) {
        const started = await step("starting the prompt (POST /execute)", async () =>
          expectStatus(await api.call("POST", "/execute", { json: { message: LONG_PROMPT, session_id: sessionId }, timeoutMs: requestMs }), 202).json,
        );
        const id = started?.execution_id;
        ensure(typeof id === "string" && id !== "", `POST /execute answered no execution_id: ${JSON.stringify(started).slice(0, 200)}`);
        const path = `/executions/${encodeURIComponent(id)}`;
        const statusNow = async (what: string) => {
          const got = await step(what, async () => expectStatus(await api.call("GET", path, { timeoutMs: requestMs }), 200).json);
          ensure(typeof got?.execution?.status === "string", `GET ${path} answered no status: ${JSON.stringify(got).slice(0, 200)}`);
          return got.execution.status as string;
        };
        // Looked at until it runs: a cancel before its run has started would have nothing to stop.
        const until = Date.now() + timeouts.startMs;
        for (let status = await statusNow("reading its status (GET /executions/:id)"); status !== "running"; status = await statusNow("reading its status (GET /executions/:id)")) {
          ensure(status === "pending", `the execution ended (${status}) before it could be cancelled`);
          ensure(Date.now() < until, `waiting for the execution to run: it was still pending after ${timeouts.startMs / 1000} s`);
          await new Promise((resolve) => setTimeout(resolve, timeouts.pollMs));
        }
        const cancel = await step("cancelling it (POST /executions/:id/cancel)", async () => expectStatus(await api.call("POST", `${path}/cancel`, { timeoutMs: requestMs }), 200).json);
        ensure(cancel?.cancelled === true, `POST ${path}/cancel answered ${JSON.stringify(cancel).slice(0, 200)}, not cancelled: true`);
        const stream = await step("reading its stream to its end (GET /executions/:id/stream)", async () => expectStatus(await api.call("GET", `${path}/stream`, { timeoutMs: runMs }), 200));
        const types = sseData(stream.text).map((event) => String(event.type));
        ensure(types.at(-1) === "done", `the cancelled execution's stream does not end with done (${types.join(", ") || "no events"})`);
        const status = await statusNow("reading its status once cancelled (GET /executions/:id)");
        ensure(status === "cancelled", `GET ${path} says its status is ${JSON.stringify(status)}, not cancelled, once cancelled`);
      },
    },
  ];
}

export const EXECUTION_TESTS: ConformanceTest[] = executionTests();
