// A request refused with 401 waits for the provider's refresh (which may wait for another program's
// lock), but not past its own cancellation.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StoredOAuthProvider } from "./oauth-provider.ts";
import { retryingRefused } from "./refused-fetch.ts";

const refusing = async () => new Response("refused", { status: 401 });

test("a refused request cancelled while the refresh waits ends at once with its cancellation; the refresh goes on for the others", { timeout: 5_000 }, async () => {
  let refreshes = 0;
  const never = { refreshRefused: () => (refreshes++, new Promise(() => {})) } as unknown as StoredOAuthProvider;
  const fetch = retryingRefused(refusing, never);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("the run was cancelled")), 50);
  // The refresh never ends: a request held until it did would never settle.
  await assert.rejects(fetch("http://mcp.test/", { headers: { authorization: "Bearer old" }, signal: controller.signal }), /the run was cancelled/);
  assert.equal(refreshes, 1);
});

test("a refused request whose tokens another program refreshed goes again once with them", async () => {
  const seen: string[] = [];
  const fetch = retryingRefused(
    async (_url, init) => {
      const auth = new Headers(init?.headers).get("authorization") ?? "";
      seen.push(auth);
      return new Response(auth === "Bearer new" ? "ok" : "refused", { status: auth === "Bearer new" ? 200 : 401 });
    },
    { refreshRefused: async () => ({ access_token: "new", token_type: "Bearer" }) } as unknown as StoredOAuthProvider,
  );
  const response = await fetch("http://mcp.test/", { headers: { authorization: "Bearer old" } });
  assert.equal(response.status, 200);
  assert.deepEqual(seen, ["Bearer old", "Bearer new"]);
});
