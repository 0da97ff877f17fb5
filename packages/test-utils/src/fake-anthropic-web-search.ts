// Anthropic's server-side web search on the wire, as the real API writes it: the model's search
// is a server_tool_use block (its input streamed as input_json_delta), its outcome a
// web_search_tool_result block given whole in content_block_start, and the text that cites the
// pages carries web_search_result_location citations (citations_delta while streaming).
import { randomBytes } from "node:crypto";
import type { FakeCitation, FakeWebSearch } from "./fake-anthropic-types.ts";
import { blockStopEvent, inputJsonDeltaEvent, sseEvent } from "./fake-anthropic-wire.ts";

export type WebSearchWireBlock =
  | { type: "server_tool_use"; id: string; name: "web_search"; input: { query: string } }
  | { type: "web_search_tool_result"; tool_use_id: string; content: WebSearchResultWire[] | { type: "web_search_tool_result_error"; error_code: string } };

type WebSearchResultWire = { type: "web_search_result"; title: string; url: string; encrypted_content: string; page_age: string | null };
type CitationWire = { type: "web_search_result_location"; url: string; title: string; cited_text: string; encrypted_index: string };

/** The two blocks of each search, in order. */
export function webSearchBlocks(searches: readonly FakeWebSearch[]): WebSearchWireBlock[] {
  return searches.flatMap((search) => {
    const id = search.id ?? `srvtoolu_01${randomBytes(11).toString("hex")}`;
    const content = search.errorCode
      ? { type: "web_search_tool_result_error" as const, error_code: search.errorCode }
      : (search.results ?? []).map((r) => ({ type: "web_search_result" as const, title: r.title, url: r.url, encrypted_content: opaque(r.url), page_age: r.pageAge ?? null }));
    return [
      { type: "server_tool_use" as const, id, name: "web_search" as const, input: { query: search.query } },
      { type: "web_search_tool_result" as const, tool_use_id: id, content },
    ];
  });
}

/** The SSE events of one block, from `index`. */
export function webSearchBlockEvents(index: number, block: WebSearchWireBlock): string[] {
  if (block.type === "web_search_tool_result") {
    return [sseEvent("content_block_start", { type: "content_block_start", index, content_block: block }), blockStopEvent(index)];
  }
  return [
    sseEvent("content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } }),
    inputJsonDeltaEvent(index, JSON.stringify(block.input)),
    blockStopEvent(index),
  ];
}

export function citationWire(citation: FakeCitation): CitationWire {
  return { type: "web_search_result_location", url: citation.url, title: citation.title, cited_text: citation.citedText, encrypted_index: opaque(citation.citedText) };
}

export function citationsDeltaEvent(index: number, citation: FakeCitation): string {
  return sseEvent("content_block_delta", { type: "content_block_delta", index, delta: { type: "citations_delta", citation: citationWire(citation) } });
}

function opaque(text: string): string {
  return Buffer.from(text).toString("base64");
}
