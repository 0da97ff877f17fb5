// The conformance suite's client: real HTTP requests to this server's own address (loopback), through
// the same routes, token check and validation any client meets, as the user who asked for the run,
// with their token. A test reads answers through expectStatus(), whose failures name the request, the
// status and what the server said.

/** The base of the Open Harness routes of this harness. */
const BASE = "/v1/harnesses/harness";
/** A request the server does not answer within this long fails its test (a slow test's tool call
 * starts the runner first). */
const REQUEST_TIMEOUT_MS = 60_000;

export type Answer = { method: string; path: string; status: number; text: string; json: any; headers: Headers };

/** `timeoutMs`: how long the request may take, its answer read to its end (default 60 s). */
export type CallInit = { json?: unknown; body?: BodyInit; form?: FormData; headers?: Record<string, string>; timeoutMs?: number };

export type LoopbackApi = {
  /** `path` under /v1/harnesses/harness (or from /v1 when it starts so), answered. */
  call(method: string, path: string, init?: CallInit): Promise<Answer>;
};

export type LoopbackAuth = { baseUrl: string; userId: string; token?: string };

export function loopbackApi(auth: LoopbackAuth, signal?: AbortSignal): LoopbackApi {
  return {
    async call(method, path, init = {}) {
      const full = path.startsWith("/v1") ? path : `${BASE}${path}`;
      const headers: Record<string, string> = { "x-harness-user": auth.userId, ...init.headers };
      if (auth.token !== undefined) headers.authorization = `Bearer ${auth.token}`;
      let body: BodyInit | undefined = init.body ?? init.form;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers["content-type"] = "application/json";
      }
      const limit = init.timeoutMs ?? REQUEST_TIMEOUT_MS;
      const timeout = AbortSignal.timeout(limit);
      let response: Response;
      try {
        response = await fetch(`${auth.baseUrl}${full}`, { method, headers, body, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      } catch (error) {
        const why = timeout.aborted ? `no answer within ${limit / 1000} s` : (error as Error).message;
        throw new Error(`${method} ${full}: ${why}`);
      }
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        // A stream (SSE) is read to its end: one that goes on past the limit is cut there.
        const why = timeout.aborted ? `answered ${response.status}, but its answer did not end within ${limit / 1000} s` : `its answer broke off: ${(error as Error).message}`;
        throw new Error(`${method} ${full}: ${why}`);
      }
      let json: unknown;
      try {
        json = text === "" ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { method, path: full, status: response.status, text, json, headers: response.headers };
    },
  };
}

/** What the server said in `answer`: its ErrorResponse's message, else the start of its body. */
export function saidIn(answer: Answer): string {
  const message = answer.json?.error?.message;
  if (typeof message === "string") return message;
  return answer.text.length > 300 ? `${answer.text.slice(0, 300)}…` : answer.text || "(no body)";
}

/** `answer` when its status is one of `expected`; otherwise an Error naming the request, the status
 * and what the server said. */
export function expectStatus(answer: Answer, ...expected: number[]): Answer {
  if (expected.includes(answer.status)) return answer;
  throw new Error(`${answer.method} ${answer.path} answered ${answer.status}, not ${expected.join(" or ")}: ${saidIn(answer)}`);
}

/** Throws `message` unless `condition` holds. */
export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** A failure to make what a test needs before it checks anything (a robustness test's file to keep):
 * the test fails, but what it checks (the golden rule) was not reached, so it is no violation. */
export class SetupFailure extends Error {}

/** `make()`'s result; its failure thrown as a SetupFailure saying so. */
export async function setUp<T>(what: string, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (error) {
    throw new SetupFailure(`could not ${what} (the golden rule was not checked): ${(error as Error).message}`);
  }
}
