// What `harness serve` prints of where it can be reached: bound to every interface (0.0.0.0), an
// address that no one can open, it names loopback first and then each of the machine's addresses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { startHarnessServer, waitFor } from "@harness/test-utils";

const TOKEN = "a-token-of-sixteen-or-more";
/** A key, so that no warning of its absence comes before the URL. */
const QUIET = { ANTHROPIC_API_KEY: "test-key" };

test("a server bound to 0.0.0.0 prints a loopback URL first, then the machine's addresses, each of which answers", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-addresses-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const server = await startHarnessServer({ dataDir, env: { ...QUIET, HARNESS_HOST: "0.0.0.0", HARNESS_TOKEN: TOKEN } });
  t.after(() => server.stop());
  assert.equal(server.url, `http://127.0.0.1:${server.port}`, "the first URL is one this machine can open");
  // `harness serve` says where sessions work once the server has started: after its every line.
  await waitFor(() => server.output().includes("sessions work in"), "the server to be started");
  const lines = server.output().split("\n");
  assert.equal(lines[0], `Harness listening on http://127.0.0.1:${server.port} (bound to 0.0.0.0, every address of this machine)`);
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && a.family === "IPv4")
    .map((a) => `http://${a!.address}:${server.port}`);
  const printed = lines.filter((line) => line.startsWith("  on the network: ")).map((line) => line.slice("  on the network: ".length));
  assert.deepEqual(printed, external);
  for (const url of [server.url, ...printed]) {
    const answer = await fetch(`${url}/healthz`);
    assert.equal(answer.status, 200, url);
  }
  assert.doesNotMatch(server.output(), /http:\/\/0\.0\.0\.0/);
});

test("a server bound to loopback prints its one URL, as before", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-addresses-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const server = await startHarnessServer({ dataDir, env: QUIET });
  t.after(() => server.stop());
  await waitFor(() => server.output().includes("sessions work in"), "the server to be started");
  assert.equal(server.output().split("\n")[0], `Harness listening on http://127.0.0.1:${server.port}`);
  assert.doesNotMatch(server.output(), /on the network/);
});
