// `stream_options: { include_usage: true }` asks for the usage chunk at the end of a stream. Some
// compatible servers and proxies refuse the field with a 400 (or, validating strictly, a 422) that
// names it: the request goes again without it, once, and the provider leaves it out from then on
// (the replies then carry no usage, which the run reports as unknown).
import type OpenAI from "openai";
import { openAISdk } from "./openai-sdk.ts";

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

/** What one provider has learned about its server, shared by all its requests. */
export type ServerQuirks = { refusesStreamOptions: boolean };

/** `body` as this server takes it. */
export function bodyFor(body: Params, quirks: ServerQuirks): Params {
  if (!quirks.refusesStreamOptions || body.stream_options === undefined) return body;
  const { stream_options: _, ...rest } = body;
  return rest;
}

/** Whether `error` is the server refusing stream_options (it names the field). */
export function refusesStreamOptions(error: unknown): boolean {
  const { APIError } = openAISdk();
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return false;
  return /stream_options/i.test(`${error.message} ${JSON.stringify(error.error ?? "")}`);
}
