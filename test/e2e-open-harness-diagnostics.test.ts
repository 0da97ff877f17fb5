// The Open Harness diagnostics on a server with people's tokens: any token reads them, none is
// refused, and nothing in them is a token, a credential or a path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { ANN_TOKEN, V1, withAnnsToken } from "./open-harness-support.ts";

test("with tokens: a person's token reads the diagnostics, which show no token, credential or path; none is refused", async (t) => {
  const h = await startHarness();
  const server = await withAnnsToken(t, h);
  const refused = await fetch(`${server.url}${V1}/diagnostics`);
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).error.code, "unauthorized");

  const answered = await fetch(`${server.url}${V1}/diagnostics`, { headers: { authorization: `Bearer ${ANN_TOKEN}` } });
  assert.equal(answered.status, 200);
  const text = await answered.text();
  const d = JSON.parse(text);
  assert.equal(d.config.auth, "user_tokens");
  assert.equal(d.active_sessions, 0);
  assert.equal(d.status, "serving");
  for (const secret of [ANN_TOKEN, "test-key", h.dataDir, join(h.dataDir, "tokens")]) assert.ok(!text.includes(secret), `${secret} is not shown`);
});
