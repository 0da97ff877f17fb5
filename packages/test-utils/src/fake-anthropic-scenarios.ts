// Reply scripts for the common cases, so tests state intent rather than wire details.
import type { FakeReply, FakeWebSearchResult, RecordedRequest } from "./fake-anthropic-types.ts";

/** The model calls one tool, then answers with text once it has the tool's result. */
export function toolThenText(toolName: string, input: Record<string, unknown>, finalText: string): FakeReply[] {
  return [{ toolUses: [{ name: toolName, input }] }, { text: finalText }];
}

/** A plain text answer streamed as one delta per word (spaces kept), as a model would. */
export function textInWords(text: string): FakeReply {
  return { text: text.match(/\S+\s*|\s+/g) ?? [] };
}

/** A `route` for driving Claude Code: its housekeeping requests (title generation on a small
 * model, quota probes) offer no tools, while every turn of the conversation itself, sub-agents'
 * included, offers Claude Code's tools. */
export function claudeCodeRoute(request: RecordedRequest): "main" | "side" {
  const tools = (request.body as { tools?: unknown }).tools;
  return Array.isArray(tools) && tools.length > 0 ? "main" : "side";
}

export type WebSearchAnswer = {
  query: string;
  results?: FakeWebSearchResult[];
  /** The search fails with this web_search_tool_result_error code instead. */
  errorCode?: string;
  /** What the model writes after searching. */
  text: string;
  /** Indexes of the results the text cites (each citing the whole text). */
  cites?: number[];
};

/** The answer of a request that offers the web_search server tool: the model searches once, then
 * writes `text`, citing the results `cites` names. */
export function webSearchAnswer(answer: WebSearchAnswer): FakeReply {
  const results = answer.results ?? [];
  const citations = (answer.cites ?? []).map((i) => {
    const result = results[i];
    if (!result) throw new RangeError(`webSearchAnswer cites result ${i}, but there are ${results.length}`);
    return { url: result.url, title: result.title, citedText: answer.text };
  });
  return {
    webSearches: [{ query: answer.query, ...(answer.errorCode ? { errorCode: answer.errorCode } : { results }) }],
    text: answer.text,
    ...(citations.length > 0 && { citations }),
  };
}
