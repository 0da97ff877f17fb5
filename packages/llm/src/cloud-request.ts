// What the fetches for Claude on a cloud (vertex/fetch.ts, bedrock/fetch.ts) share: the Anthropic
// SDK builds a Messages request as for Anthropic's API, and each takes it apart the same way before
// sending it where its cloud serves it.
import type { EventStreamInit } from "./net/http-fetch.ts";

/** The fetch the SDK is given. */
export type SdkFetch = (input: string | URL | Request, init?: EventStreamInit) => Promise<Response>;

/** Pure: the model of the SDK's request to `input` with `body`, and the rest of that body. Throws
 * an Error naming `service` for a request it cannot serve: not the Messages endpoint, no JSON body,
 * no model. */
export function messagesRequest(service: string, input: string | URL | Request, body: unknown): { model: string; rest: Record<string, unknown> } {
  const path = new URL(String(input instanceof Request ? input.url : input)).pathname;
  if (!path.endsWith("/v1/messages")) throw new Error(`Claude on ${service} serves the Messages API only, not ${path}`);
  if (typeof body !== "string") throw new Error(`a request to ${service} must have a JSON body`);
  const { model, ...rest } = JSON.parse(body) as Record<string, unknown>;
  if (typeof model !== "string" || model === "") throw new Error(`a request to ${service} must name its model`);
  return { model, rest };
}

/** The SDK's headers without its placeholder credential (see anthropic/provider.ts), which never
 * leaves the process: the cloud's own goes in its place. */
export function headersWithoutCredential(init: EventStreamInit): Headers {
  const headers = new Headers(init.headers);
  headers.delete("x-api-key");
  headers.delete("authorization");
  return headers;
}
