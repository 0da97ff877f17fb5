// The server's sessions over HTTP (GET/POST /sessions, GET/PATCH/DELETE /sessions/:id, POST
// /sessions/:id/fork, GET /sessions/:id/files), typed. Browser-safe: the standard fetch, and answers checked by hand rather
// than with a schema library, so that a browser bundle stays small.
import type { ForkResult, SessionFiles, SessionRead, SessionSummary } from "@harness/protocol";
import { answerOf, check, type Check, type Fields } from "./answers.ts";
import { idSaid } from "./options.ts";

export type SessionsApiOptions = {
  /** Base URL of the server, as the WebSocket client's `url`: http(s), or ws(s) for the same server. */
  url: string;
  userId: string;
  /** Sent as `Authorization: Bearer`. */
  token?: string;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
};

type Call = { signal?: AbortSignal };

export type SessionsApi = {
  /** The user's sessions, the most recently active first. */
  list(options?: Call): Promise<SessionSummary[]>;
  /** The session's state as it is now (its conversation, a run under way included), without a
   * WebSocket; 404 (a SessionsApiError) for no such session of the user. */
  get(sessionId: string, options?: Call): Promise<SessionRead>;
  /** A new empty session: `sessionId` if given (taken: an Error with status 409), else a fresh one. */
  create(options?: { sessionId?: string; title?: string } & Call): Promise<{ sessionId: string }>;
  /** The title as stored (trimmed). */
  rename(sessionId: string, title: string, options?: Call): Promise<{ sessionId: string; title: string }>;
  /** Deletes the session, its history, its workspace and its runner. */
  remove(sessionId: string, options?: Call): Promise<{ sessionId: string; deleted: true }>;
  /** A new session with the history up to `messageId` (all of it without), and its files as they
   * were there; `sessionId` and `title` are the fork's own (without a title, it
   * keeps the one its source was given). */
  fork(sessionId: string, options?: { messageId?: string; sessionId?: string; title?: string } & Call): Promise<ForkResult>;
  /** For completion: the paths of the session's workspace (the server's project when it has one)
   * that start with `prefix` (relative to it), folders ending in "/", sorted, at most 200; when
   * none does, those holding its characters in order, as a chat's own `@path` completion. */
  listFiles(sessionId: string, prefix: string, options?: Call): Promise<string[]>;
};

/** A call the server answered with an HTTP error: the message holds the status and what it said. */
export class SessionsApiError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = "SessionsApiError";
    this.status = status;
  }
}

const string: Check = (v) => (typeof v === "string" ? undefined : v === undefined ? "is missing" : "must be a string");
const Summary: Fields = {
  sessionId: string,
  title: (v) => (v === null || typeof v === "string" ? undefined : "must be a string or null"),
  status: string,
  messageCount: (v) => (Number.isInteger(v) && (v as number) >= 0 ? undefined : "must be a whole number"),
  createdAt: string,
  updatedAt: string,
};

/** Throws, naming the option, for options a server could not be called with: a url that is not
 * http(s) or ws(s), a userId the server refuses (as the client's constructor says it), an empty token. */
export function createSessionsApi(options: SessionsApiOptions): SessionsApi {
  const base = baseUrl(options.url);
  const { userId, token } = options;
  const userProblem = idSaid("userId", userId);
  if (userProblem) throw new Error(userProblem);
  if (token !== undefined && (typeof token !== "string" || token === "")) throw new Error("token: must be a non-empty string when given");
  if (options.fetch !== undefined && typeof options.fetch !== "function") throw new Error("fetch: must be a function when given");

  async function call(method: string, path: string, body: Record<string, unknown> | undefined, signal: AbortSignal | undefined, query: Record<string, string> = {}): Promise<unknown> {
    const url = new URL(base + path);
    if (!body) url.searchParams.set("userId", userId);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body) headers["content-type"] = "application/json";
    const init: RequestInit = { method, headers, ...(body && { body: JSON.stringify({ ...body, userId }) }), ...(signal && { signal }) };
    const name = `${method} ${path}`;
    let response: Response;
    try {
      // Called unbound: a browser's fetch refuses to run with another `this`.
      response = await (options.fetch ?? globalThis.fetch)(url, init);
    } catch (error) {
      if (signal?.aborted) throw error;
      const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message;
      throw new Error(`${name}: cannot reach ${url}: ${(error as Error).message}${why ? ` (${why})` : ""}`, { cause: error });
    }
    const answer = await answerOf(response, name);
    if (!response.ok) {
      // The server says what is wrong as {error}; a proxy in between may answer anything.
      const error = (answer.json as { error?: unknown } | null | undefined)?.error;
      const said = typeof error === "string" ? `: ${error}` : response.statusText ? ` ${response.statusText}` : "";
      throw new SessionsApiError(`${name} answered ${response.status}${said}`, response.status);
    }
    if (answer.problem) throw new Error(`${name}: the server's answer ${answer.problem}`);
    return answer.json;
  }

  const path = (sessionId: string) => `/sessions/${encodeURIComponent(pathId(sessionId))}`;
  return {
    async list(opts = {}) {
      const answer = await call("GET", "/sessions", undefined, opts.signal);
      return check("GET /sessions", answer, { array: Summary }) as SessionSummary[];
    },
    async get(sessionId, opts = {}) {
      const at = path(sessionId);
      const state: Check = (v) => {
        const s = v as { status?: unknown; messages?: unknown } | null;
        return typeof s === "object" && s !== null && typeof s.status === "string" && Array.isArray(s.messages) ? undefined : "must be an object with status and messages";
      };
      return check(`GET ${at}`, await call("GET", at, undefined, opts.signal), { object: { sessionId: string, state } }) as SessionRead;
    },
    async create({ signal, ...body } = {}) {
      return check("POST /sessions", await call("POST", "/sessions", body, signal), { object: { sessionId: string } }) as { sessionId: string };
    },
    async rename(sessionId, title, opts = {}) {
      const at = path(sessionId);
      return check(`PATCH ${at}`, await call("PATCH", at, { title }, opts.signal), { object: { sessionId: string, title: string } }) as { sessionId: string; title: string };
    },
    async remove(sessionId, opts = {}) {
      const at = path(sessionId);
      const deleted: Check = (v) => (v === true ? undefined : "must be true");
      return check(`DELETE ${at}`, await call("DELETE", at, undefined, opts.signal), { object: { sessionId: string, deleted } }) as { sessionId: string; deleted: true };
    },
    async fork(sessionId, { signal, ...body } = {}) {
      const at = `${path(sessionId)}/fork`;
      const optional: Check = (v) => (v === undefined ? undefined : string(v));
      return check(`POST ${at}`, await call("POST", at, body, signal), { object: { sessionId: string, prompt: optional, warning: optional } }) as ForkResult;
    },
    async listFiles(sessionId, prefix, opts = {}) {
      const at = `${path(sessionId)}/files`;
      if (typeof prefix !== "string") throw new Error(`prefix: must be a string, got ${JSON.stringify(prefix)}`);
      const paths: Check = (v) => (Array.isArray(v) && v.every((p) => typeof p === "string") ? undefined : "must be an array of strings");
      return (check(`GET ${at}`, await call("GET", at, undefined, opts.signal, { prefix }), { object: { paths } }) as SessionFiles).paths;
    },
  };
}

/** The server's http(s) base URL, without a trailing slash, from `url` in any of the four schemes. */
export function baseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`url: is not a URL: ${JSON.stringify(url)}`);
  }
  const scheme = { "http:": "http:", "ws:": "http:", "https:": "https:", "wss:": "https:" }[parsed.protocol];
  if (!scheme) throw new Error(`url: must be http(s) or ws(s), got ${JSON.stringify(url)}`);
  parsed.protocol = scheme;
  parsed.search = "";
  parsed.hash = "";
  return parsed.toString().replace(/\/+$/, "");
}

/** `sessionId`, fit for a path segment: "." and ".." would be read as the path's own steps. */
function pathId(sessionId: string): string {
  if (typeof sessionId !== "string" || sessionId === "" || sessionId === "." || sessionId === "..") {
    throw new Error(`sessionId: must be a non-empty string other than "." and "..", got ${JSON.stringify(sessionId)}`);
  }
  return sessionId;
}
