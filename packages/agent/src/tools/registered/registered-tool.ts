// A tool a program registered for the session (RunAgentOptions.registeredTools): offered to the model
// with the program's description and input schema; each call's input is POSTed, as JSON, to the
// program's endpoint, and its answer is the tool's result.
//
// The request: POST <url> with { "tool": name, "tool_use_id": id, "input": {…} }. The answer: a 2xx
// whose body is the result's text; or, as JSON, { "content": text, "is_error"?: boolean } (content
// other than a string is given to the model as its JSON). Any other status, a connection that fails,
// a redirect (not followed) and an endpoint slower than the time limit are error results the model
// reads: never a failed run.
import { z } from "zod";
import { fetchFor } from "@harness/llm/http-fetch";
import { leadingText } from "@harness/protocol/leading-text";
import type { RegisteredTool } from "@harness/protocol";
import { timeLimit } from "../../process/time-limit.ts";
import { modelInputSchema } from "../../mcp/input-schema.ts";
import type { Tool, ToolContext, ToolOutput } from "../../types.ts";

/** What is read of an answer; the rest is dropped (the loop cuts what the model sees further). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** How long a call waits for the endpoint, unless HARNESS_TOOL_ENDPOINT_TIMEOUT_MS says otherwise. */
export const DEFAULT_ENDPOINT_TIMEOUT_MS = 120_000;
/** What of a failed answer's body the model is shown. */
const SHOWN_ERROR_CHARS = 500;

/** Arguments go to the endpoint as the model gave them: the program validates them against its own
 * schema and answers with an error the model can act on. This only requires a JSON object. */
const anyArguments = z.record(z.string(), z.unknown());

export function registeredTool(def: RegisteredTool): Tool {
  return {
    name: def.name,
    description: def.description,
    parameters: anyArguments,
    inputSchema: modelInputSchema(def.inputSchema),
    execute: (args, ctx) => callEndpoint(def, args as Record<string, unknown>, ctx),
  };
}

/** The time limit of a call: the host's HARNESS_TOOL_ENDPOINT_TIMEOUT_MS (milliseconds; the server's,
 * which its runners inherit), else the default. */
function timeoutOf(env: Readonly<Record<string, string | undefined>>): number {
  const given = Number(env.HARNESS_TOOL_ENDPOINT_TIMEOUT_MS);
  return Number.isInteger(given) && given > 0 ? given : DEFAULT_ENDPOINT_TIMEOUT_MS;
}

async function callEndpoint(def: RegisteredTool, input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
  const env = ctx.networkEnv ?? ctx.env ?? process.env;
  const timeoutMs = timeoutOf(process.env);
  const host = hostOf(def.url);
  const limit = timeLimit(ctx.signal, timeoutMs);
  try {
    const body = JSON.stringify({ tool: def.name, tool_use_id: ctx.toolUseId, input });
    const response = await fetchFor(env)(def.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/plain" }, body, redirect: "manual", signal: limit.signal });
    const { text, more } = await leadingText(response, MAX_ANSWER_BYTES);
    if (response.status < 200 || response.status >= 300) {
      const moved = response.status >= 300 && response.status < 400 ? " (redirects are not followed)" : "";
      const shown = text.trim().slice(0, SHOWN_ERROR_CHARS);
      return { content: `The tool's endpoint (${host}) answered HTTP ${response.status}${moved}${shown ? `: ${shown}` : ""}`, isError: true };
    }
    const answer = answerOf(text, response.headers.get("content-type"));
    return more ? { ...answer, content: `${answer.content}\n[the endpoint's answer was cut at ${MAX_ANSWER_BYTES} bytes]` } : answer;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (limit.timedOut()) return { content: `The tool's endpoint (${host}) did not answer within ${timeoutMs / 1000} s`, isError: true };
    return { content: `The tool's endpoint (${host}) could not be reached: ${causeOf(error)}`, isError: true };
  } finally {
    limit.done();
  }
}

/** A 2xx answer's result: JSON's { content, is_error } when it is that, else the text itself. */
function answerOf(text: string, contentType: string | null): ToolOutput {
  if (!/\bjson\b/i.test(contentType ?? "")) return { content: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { content: text };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || !("content" in value)) return { content: text };
  const { content, is_error } = value as { content: unknown; is_error?: unknown };
  return { content: typeof content === "string" ? content : JSON.stringify(content), ...(is_error === true && { isError: true }) };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
