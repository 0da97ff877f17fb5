// A remote MCP server's fetch that answers a 401 to a request carrying the provider's access token
// itself, once, before the SDK's transport sees it: the transport would call the SDK's auth(),
// which refreshes outside the refresh lock that keeps two programs from spending one refresh
// token (oauth-provider.ts). The provider replaces the refused token under that lock, and the
// request goes again with the new one.
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { untilAborted } from "../harness/abortable.ts";
import { McpSignInNeeded, type StoredOAuthProvider } from "./oauth-provider.ts";

/** `fetch` retrying a request refused with 401 once with the tokens provider.refreshRefused gives.
 * A request refused again, or for which there are no other tokens, gets its 401 as it came: the
 * SDK's auth() then finds no refresh token to send and asks for a sign-in (McpSignInNeeded). */
export function retryingRefused(fetch: FetchLike, provider: StoredOAuthProvider): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.status !== 401) return response;
    const headers = new Headers(init?.headers);
    const refused = /^Bearer (\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];
    if (refused === undefined) return response;
    let tokens;
    try {
      // The refresh is shared by every request refused meanwhile, and may wait for another
      // program's lock: this request stops waiting when it is cancelled, the refresh goes on.
      const signal = init?.signal;
      tokens = signal ? await untilAborted(provider.refreshRefused(refused), signal) : await provider.refreshRefused(refused);
      signal?.throwIfAborted();
    } catch (error) {
      // A refresh refused has ended the sign-in: the SDK says so where the transport expects it.
      if (error instanceof McpSignInNeeded) return response;
      throw error;
    }
    if (!tokens || tokens.access_token === refused) return response;
    await response.body?.cancel();
    headers.set("authorization", `Bearer ${tokens.access_token}`);
    return fetch(url, { ...init, headers });
  };
}

