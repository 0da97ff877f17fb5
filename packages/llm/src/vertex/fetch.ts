// The fetch the Anthropic SDK is given for Claude on Vertex AI: the SDK builds a Messages request
// as for Anthropic's API, and this sends it where Vertex serves it. The model moves from the body
// to the path ({base}/projects/{project}/locations/{region}/publishers/anthropic/models/{model}
// :streamRawPredict), the body names Vertex's API version, and a Google access token replaces the
// SDK's credential. The answer is the same Messages SSE stream, so retries, errors, usage and
// thinking are the Anthropic provider's own.
import { googleAccessToken } from "../google/token.ts";
import { headersWithoutCredential, messagesRequest, type SdkFetch } from "../cloud-request.ts";
import type { EnvLike } from "../settings.ts";
import type { VertexSettings } from "./settings.ts";

export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** A fetch for the SDK client whose baseURL is `settings.baseURL`. A request it cannot send (not
 * the Messages endpoint, no model in the body) rejects with an Error saying so; a token that cannot
 * be had rejects with a GoogleAuthError. */
export function vertexFetch(settings: VertexSettings, env: EnvLike, inner: SdkFetch, token: (env: EnvLike) => Promise<string> = googleAccessToken): SdkFetch {
  return async (input, init = {}) => {
    const { url, body } = vertexRequest(settings, input, init.body);
    const headers = headersWithoutCredential(init);
    if (!settings.skipAuth) headers.set("authorization", `Bearer ${await token(env)}`);
    return inner(url, { ...init, headers, body });
  };
}

/** Pure: the Vertex URL and body for the SDK's request to `sdkUrl` with `body`. */
export function vertexRequest(settings: VertexSettings, sdkUrl: string | URL | Request, body: unknown): { url: string; body: string } {
  const { model, rest } = messagesRequest("Vertex AI", sdkUrl, body);
  const method = rest.stream === true ? "streamRawPredict" : "rawPredict";
  const where = `projects/${encodeURIComponent(settings.projectId)}/locations/${encodeURIComponent(settings.region)}`;
  return {
    url: `${settings.baseURL}/${where}/publishers/anthropic/models/${encodeURIComponent(model).replace(/%40/g, "@")}:${method}`,
    body: JSON.stringify({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest }),
  };
}
