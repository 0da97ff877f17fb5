// Some servers and proxies answer a streaming chat-completions request with one whole
// `chat.completion` JSON (when they cannot stream, with tools say). Such an answer is taken as the
// chunks that would have streamed it; any other answer that is not an event stream is refused
// in words (expectEventStream).
import type OpenAI from "openai";
import { expectEventStream } from "../retry/policy.ts";

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type Completion = OpenAI.Chat.Completions.ChatCompletion;

/** The chunks of a 2xx JSON completion in `response`; undefined for an event stream. Throws
 * (NotAnEventStream) for anything else. */
export async function wholeReply(response: Response, api: string): Promise<Chunk[] | undefined> {
  const type = response.headers.get("content-type") ?? "";
  if (!response.ok || !/^application\/json\b/i.test(type)) {
    await expectEventStream(response, api);
    return undefined;
  }
  const text = await response.text().catch(() => "");
  const chunks = chunksOf(parse(text));
  if (chunks) return chunks;
  await expectEventStream(new Response(text, { status: response.status, headers: response.headers }), api);
  return undefined;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A completion as one chunk of its message, then one of its usage. */
function chunksOf(value: unknown): Chunk[] | undefined {
  const completion = value as Partial<Completion> | null;
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null) return undefined;
  const { content, refusal, tool_calls: calls } = choice.message;
  const reasoning = choice.message as { reasoning_content?: unknown; reasoning?: unknown };
  const delta: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & Record<string, unknown> = { role: "assistant" };
  if (typeof content === "string") delta.content = content;
  if (typeof refusal === "string") delta.refusal = refusal;
  for (const field of ["reasoning_content", "reasoning"] as const) if (typeof reasoning[field] === "string") delta[field] = reasoning[field];
  if (Array.isArray(calls)) {
    delta.tool_calls = calls.map((call, index) => ({ index, id: call.id, type: "function", function: "function" in call ? call.function : undefined }));
  }
  const envelope = { id: completion!.id ?? "", created: completion!.created ?? 0, model: completion!.model ?? "", object: "chat.completion.chunk" as const };
  const chunks: Chunk[] = [{ ...envelope, choices: [{ index: 0, delta, finish_reason: choice.finish_reason ?? "stop", logprobs: null }] }];
  if (completion!.usage) chunks.push({ ...envelope, choices: [], usage: completion!.usage });
  return chunks;
}
