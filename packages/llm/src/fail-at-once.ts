import type { ModelEvent, ModelRequest } from "./types.ts";

/** A stream that ends at once, before any request is made: with `message` as its error, or as
 * aborted when the request's signal has already fired. */
export async function* failAtOnce(message: string, request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined> {
  const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
  const stopReason = request.signal?.aborted ? "aborted" : "error";
  yield { type: "done", stopReason, message: { role: "assistant", content: [] }, usage, ...(stopReason === "error" && { errorMessage: message }) };
}
