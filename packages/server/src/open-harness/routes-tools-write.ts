// Tools registered by a program over the Open Harness API (tools.register, tools.unregister), for the
// session its query names (session_id): kept by the server (sqlite/registered-tools.ts), not in the
// workspace, and handed to each of the session's runs, whose model is offered them like any tool
// (source "custom" in the listing). A call's input is POSTed to the tool's webhook URL and the
// answer is its result (@harness/agent's tools/registered/registered-tool.ts); the session's
// permission rules name it as any tool (it asks unless an allow rule names it). Only the builtin
// backend runs them: with Claude Code, registering is 501. A `command` handler is 501 too.
import { z } from "zod";
import { BUILTIN_TOOL_NAMES } from "@harness/agent/tool-names";
import { MAX_REGISTERED_DESCRIPTION_CHARS, MAX_REGISTERED_SCHEMA_BYTES, MAX_REGISTERED_TOOLS, RegisteredToolName, type RegisteredTool } from "@harness/protocol";
import { bodyOf, check } from "../sessions/api.ts";
import { ApiError } from "./errors.ts";
import { H, handle, harnessOf, queryOf, type OpenHarness } from "./common.ts";
import { ownSession, SessionQuery } from "./session-of.ts";
import type { ToolShape } from "./routes-tools.ts";
import { webhookUrlProblem } from "./webhook-url.ts";

const Handler = z.discriminatedUnion(
  "type",
  [z.strictObject({ type: z.literal("webhook"), url: z.string() }), z.strictObject({ type: z.literal("command"), command: z.string(), args: z.array(z.string()).optional() })],
  { error: 'must be { "type": "webhook", "url" } (or { "type": "command", "command" }, which this harness does not run)' },
);
const RegisterBody = z.strictObject({
  name: RegisteredToolName,
  description: z.string().min(1, "must not be empty").max(MAX_REGISTERED_DESCRIPTION_CHARS, `must be at most ${MAX_REGISTERED_DESCRIPTION_CHARS} characters`),
  input_schema: z.record(z.string(), z.unknown(), { error: "must be a JSON Schema object" }),
  handler: Handler,
});

/** A registration's body: room for the largest schema with the rest (past it: 413). */
const MAX_BODY_BYTES = 4 * MAX_REGISTERED_SCHEMA_BYTES;

/** Names no registered tool may have, in any case: the built-in tools' (a permission rule names a
 * built-in by its name; one spelt otherwise is taken for a mistake). */
const RESERVED = new Set([...BUILTIN_TOOL_NAMES, "Task"].map((name) => name.toLowerCase()));

/** Why `schema` is no input schema the model can be given, or undefined. */
function schemaProblem(schema: Record<string, unknown>): string | undefined {
  if (schema.type !== "object") return `must have "type": "object", not ${JSON.stringify(schema.type) ?? "none"}`;
  const { properties, required } = schema;
  if (properties !== undefined && (properties === null || typeof properties !== "object" || Array.isArray(properties))) return '"properties" must be an object of schemas';
  if (required !== undefined && (!Array.isArray(required) || required.some((name) => typeof name !== "string"))) return '"required" must be an array of property names';
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_REGISTERED_SCHEMA_BYTES) return `must be at most ${MAX_REGISTERED_SCHEMA_BYTES} bytes as JSON`;
  return undefined;
}

/** A registered tool as the API shows it. */
export function customToolShape(tool: RegisteredTool): ToolShape {
  return { id: tool.name, name: tool.name, description: tool.description, source: "custom", input_schema: tool.inputSchema, handler: { type: "webhook", url: tool.url } };
}

export function mountToolWriteRoutes(oh: OpenHarness): void {
  const { app } = oh;
  const { store, allowPrivate } = oh.registeredTools;
  app.post(
    `${H}/tools`,
    handle(async (c) => {
      const operation = "tools.register";
      harnessOf(c);
      const { session_id } = queryOf(c, SessionQuery);
      const userId = await ownSession(oh, c, session_id);
      if (oh.backend !== "builtin") throw new ApiError(501, "not_implemented", `tools.register: the runs' backend (${oh.backend}) offers its own tools only; registered tools need the builtin backend`, operation);
      const body = check(RegisterBody, await bodyOf(c, MAX_BODY_BYTES));
      if (body.handler.type === "command") throw new ApiError(501, "not_implemented", 'handler: a "command" handler is not supported by this harness: give a "webhook" handler, whose URL each call is POSTed to', operation);
      const urlProblem = webhookUrlProblem(body.handler.url, allowPrivate);
      if (urlProblem) throw new ApiError(400, "invalid_request", `handler.url ${urlProblem}`, operation);
      const problem = schemaProblem(body.input_schema);
      if (problem) throw new ApiError(400, "invalid_request", `input_schema ${problem}`, operation);
      if (RESERVED.has(body.name.toLowerCase())) throw new ApiError(409, "tool_exists", `"${body.name}" is the name of a built-in tool: register the tool under another name`, operation);
      const tools = store.list(userId, session_id);
      if (tools.some((tool) => tool.name === body.name)) throw new ApiError(409, "tool_exists", `the session has a registered tool "${body.name}" already: unregister it first`, operation);
      if (tools.length >= MAX_REGISTERED_TOOLS) throw new ApiError(409, "too_many_tools", `the session has ${tools.length} registered tools, the most it may have: unregister one first`, operation);
      const tool: RegisteredTool = { name: body.name, description: body.description, inputSchema: body.input_schema, url: body.handler.url };
      if (!store.add(userId, session_id, tool)) throw new ApiError(409, "tool_exists", `the session has a registered tool "${body.name}" already: unregister it first`, operation);
      return c.json({ tool: customToolShape(tool) }, 201);
    }),
  );
  app.delete(
    `${H}/tools/:toolId`,
    handle(async (c) => {
      const operation = "tools.unregister";
      harnessOf(c);
      const id = c.req.param("toolId")!;
      const { session_id } = queryOf(c, SessionQuery);
      const userId = await ownSession(oh, c, session_id);
      if (store.delete(userId, session_id, id)) return c.body(null, 204);
      throw new ApiError(404, "tool_not_found", `no tool "${id}" registered for the session: only registered tools can be unregistered`, operation);
    }),
  );
}
