// What the Open Harness routes share: the paths, the request helpers, and the answer to failures.
import type { Context, Hono } from "hono";
import { z } from "zod";
import { BadRequest, check, userOf } from "../sessions/api.ts";
import { ApiError, answerError, codeOfStatus } from "./errors.ts";
import type { EventStore } from "./event-store.ts";
import type { Executions } from "./executions.ts";
import type { SpawnedSubagents } from "./spawned-subagents.ts";
import type { ToolInvoker } from "./tool-invoke.ts";
import type { McpApprovalStore } from "../sqlite/mcp-approvals.ts";
import type { RegisteredToolStore } from "../sqlite/registered-tools.ts";
import type { RegisteredHarnessStore } from "../sqlite/registered-harnesses.ts";
import type { McpProber } from "./mcp-probe.ts";
import { HARNESS_ID } from "./manifest.ts";

/** What the routes share: the app (for the sessions API), the executions, and the request helpers. */
export type OpenHarness = {
  app: Hono;
  executions: Executions;
  /** The directory the runs of a session work in: its workspace, or the server's project. */
  workDirOf(userId: string, sessionId: string): string;
  /** The home directory the runs have (their user's skills and settings are there). */
  home: string;
  /** Where the versions of a session's skills are kept (skill-versions.ts): the server's, removed
   * with the session and copied into its forks. */
  skillVersionsOf(userId: string, sessionId: string): string;
  /** Whether the user's session exists, its state left unread. */
  sessionExists(userId: string, sessionId: string): Promise<boolean>;
  version: string;
  /** The backend the runs use (HARNESS_BACKEND): builtin or claude-code. */
  backend: string;
  /** The server's environment, which gives the runs their model and its credentials. */
  modelEnv: Readonly<Record<string, string | undefined>>;
  startedAt: string;
  stopping: () => string | undefined;
  /** One of a session's tools called directly on its runner (tool-invoke.ts). */
  invokeTool: ToolInvoker;
  /** The sub-agents spawned over the API, with the tasks delegated to them. */
  subagents: SpawnedSubagents;
  /** The event feed's events other than executions' (event-store.ts): what records one there
   * tells the feed's streams and the webhooks. */
  events: EventStore;
  /** The .mcp.json servers each session's API caller connected, approved for its runs. */
  mcpApprovals: McpApprovalStore;
  /** The tools programs registered for each session, and whether their URLs may name private
   * addresses (and loopback over http), as webhooks' may. */
  registeredTools: { store: RegisteredToolStore; allowPrivate: boolean };
  /** A session's MCP servers started on its runner and asked (mcp-probe.ts). */
  probeMcp: McpProber;
  /** The harnesses registered besides this one (the server's registry, shared by its users). */
  harnesses: RegisteredHarnessStore;
};

export const PREFIX = "/v1";
export const H = `${PREFIX}/harnesses/:harnessId`;

/** A route's handler: its ApiErrors (and the sessions API's BadRequests) answered as ErrorResponses. */
export const handle =
  (fn: (c: Context) => Promise<Response> | Response) =>
  async (c: Context): Promise<Response> => {
    try {
      return await fn(c);
    } catch (error) {
      const refused = refusal(error);
      if (refused instanceof ApiError) return answerError(c, refused);
      throw error;
    }
  };

/** `error` as the API answers it: a BadRequest of the sessions API's checks (a query, a body) made
 * an ApiError of its status, naming `operation` when given; anything else as it is. */
export function refusal(error: unknown, operation?: string): unknown {
  return error instanceof BadRequest ? new ApiError(error.status, codeOfStatus(error.status), error.message, operation) : error;
}

/** The harness the path names (`id`, else its :harnessId), which must be this one. (One registered
 * besides it never comes here: routes-harnesses.ts answers its operations first.) */
export function harnessOf(c: Context, id = c.req.param("harnessId")): void {
  if (id !== HARNESS_ID) throw new ApiError(404, "harness_not_found", `no harness "${id}": this server serves the harness "${HARNESS_ID}" (see GET /v1/harnesses)`);
}

/** The user a request speaks for: the one the x-harness-user header or the userId query parameter
 * names, else its token's (HARNESS_TOKENS_FILE), by the sessions API's rules (a token bound to one
 * user acts for no other). */
export function userOfRequest(c: Context): string {
  return userOf(c, undefined, true);
}

/** Fields of the spec this server does not take: given, the request is answered 501 naming them. */
export function refuseUnsupported(body: Record<string, unknown>, fields: string[], operation: string): void {
  const given = fields.filter((field) => body[field] !== undefined);
  if (given.length) throw new ApiError(501, "not_implemented", `${given.join(", ")}: not supported by this harness (see its capabilities' limitations)`, operation);
}

/** The query's values of `schema`'s keys, checked by it (named in messages). */
export function queryOf<T>(c: Context, schema: z.ZodType<T>): T {
  const raw: Record<string, string> = {};
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length > 1) throw new ApiError(400, "invalid_request", `${name}: given more than once`);
    raw[name] = values[0];
  }
  return check(schema, raw, "query");
}

