// What `harness serve` warns about at start: a metrics token that protects nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { harness, tempDir } from "../test-support.ts";

const METRICS_TOKEN = "metrics-token-0123456789";

/** Starts `harness serve` with `env`, reads GET /metrics without a token, stops it: its stderr and
 * the status /metrics answered. */
async function serveOnce(t: Parameters<typeof tempDir>[0], env: Record<string, string>): Promise<{ stderr: string; metricsStatus: number }> {
  const dir = tempDir(t);
  let listening!: (url: string) => void;
  const urlPrinted = new Promise<string>((resolve) => (listening = resolve));
  const { child, result } = harness(["serve", "--port", "0"], { ANTHROPIC_API_KEY: "sk-ant-test", HARNESS_DATA_DIR: join(dir, "data"), HARNESS_TOKEN: "", HARNESS_TOKENS_FILE: "", ...env }, {
    onStdout: (text) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (match) listening(match[1]);
    },
  });
  t.after(() => child.kill("SIGKILL"));
  const url = await urlPrinted;
  const metricsStatus = (await fetch(`${url}/metrics`)).status;
  child.kill("SIGTERM");
  const { code, stderr } = await result;
  assert.equal(code, 0, stderr);
  return { stderr, metricsStatus };
}

test("harness serve with HARNESS_METRICS_TOKEN and no other token warns that /metrics is open on loopback anyway", async (t) => {
  const { stderr, metricsStatus } = await serveOnce(t, { HARNESS_METRICS_TOKEN: METRICS_TOKEN });
  assert.equal(metricsStatus, 200, "/metrics answers without the token");
  assert.match(stderr, /^harness: warning: HARNESS_METRICS_TOKEN protects nothing: without HARNESS_TOKEN .*GET \/metrics answers anyone on this machine without a token.*\n/m);
  assert.doesNotMatch(stderr, new RegExp(METRICS_TOKEN), "the token itself is not printed");
});

test("harness serve with HARNESS_METRICS_TOKEN and HARNESS_TOKEN does not warn about it", async (t) => {
  const { stderr, metricsStatus } = await serveOnce(t, { HARNESS_METRICS_TOKEN: METRICS_TOKEN, HARNESS_TOKEN: "shared-token-0123456789" });
  assert.equal(metricsStatus, 401);
  assert.doesNotMatch(stderr, /HARNESS_METRICS_TOKEN/);
});
