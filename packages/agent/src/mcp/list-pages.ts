// The pages of an MCP server's lists (tools/list, prompts/list, resources/list), read with a loose
// schema so that each item can be checked on its own: the SDK's own listings refuse the whole list,
// and with it the whole server, for one malformed item.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";
import { withRequestSignal } from "./request-signal.ts";

/** A page of each list: its items under the list's own key, each left for the caller to check. */
const PAGES = {
  "tools/list": z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }),
  "prompts/list": z.object({ prompts: z.array(z.unknown()), nextCursor: z.string().optional() }),
  "resources/list": z.object({ resources: z.array(z.unknown()), nextCursor: z.string().optional() }),
};

/** The items of each page of `method`, in order, at most `maxPages` pages; `onMore` is told when
 * the server had more than that (the rest are not read). Each request follows `options.signal` only
 * while it is under way. Rejects as a request does. */
export async function* listPages(
  client: Client,
  method: keyof typeof PAGES,
  maxPages: number,
  options: { signal: AbortSignal; timeout: number },
  onMore?: () => void,
): AsyncGenerator<unknown[]> {
  const key = method.slice(0, method.indexOf("/")) as "tools" | "prompts" | "resources";
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await withRequestSignal(options.signal, (signal) =>
      client.request({ method, ...(cursor !== undefined && { params: { cursor } }) }, PAGES[method], { signal, timeout: options.timeout }),
    );
    yield (result as Record<typeof key, unknown[]>)[key];
    cursor = result.nextCursor;
    if (!cursor) return;
  }
  onMore?.();
}
