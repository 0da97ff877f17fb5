// The Open Harness diagnostics on a server with people's tokens: any token reads them, none is
// refused, and nothing in them is a token, a credential or a path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarnessServer } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { V1 } from "./open-harness-support.ts";

test("with tokens: a person's token reads the diagnostics, which show no token, credential or path; none is refused", async (t) => {
  const h = await startHarness();
  await h.server.stop();
  const file = join(h.dataDir, "tokens");
  await writeFile(file, "ann ann-token-0123456789abcdef\n");
  const server = await startHarnessServer({ dataDir: h.dataDir, env: { ...h.env, HARNESS_TOKENS_FILE: file } });
  t.after(async () => {
    await server.stop();
    await h.fake.close();
    await rm(h.dataDir, { recursive: true, force: true });
  });
  const refused = await fetch(`${server.url}${V1}/diagnostics`);
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).error.code, "unauthorized");

  const answered = await fetch(`${server.url}${V1}/diagnostics`, { headers: { authorization: "Bearer ann-token-0123456789abcdef" } });
  assert.equal(answered.status, 200);
  const text = await answered.text();
  const d = JSON.parse(text);
  assert.equal(d.config.auth, "user_tokens");
  assert.equal(d.active_sessions, 0);
  assert.equal(d.status, "serving");
  for (const secret of ["ann-token-0123456789abcdef", "test-key", h.dataDir, file]) assert.ok(!text.includes(secret), `${secret} is not shown`);
});
