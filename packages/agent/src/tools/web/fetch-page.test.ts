// fetchPage's requests go out as the model's do: through the run's proxy, with the CA of its
// NODE_EXTRA_CA_CERTS and the client certificate of its CLAUDE_CODE_CLIENT_CERT / _KEY.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { startHttpProxy, startTlsFront, TEST_CA_FILE, TEST_CLIENT_CERT_FILE, TEST_CLIENT_KEY_FILE } from "@harness/test-utils";
import { fetchPage } from "./fetch-page.ts";

test("an https page behind a gateway that demands mutual TLS is fetched through HTTPS_PROXY with the run's CA and client certificate", async (t) => {
  const site = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("the page behind the gateway"));
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const gateway = await startTlsFront(`http://127.0.0.1:${(site.address() as AddressInfo).port}`, { requireClientCert: true });
  const proxy = await startHttpProxy();
  t.after(async () => {
    await gateway.close();
    await proxy.close();
    site.close();
  });
  const env = { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: TEST_CA_FILE, CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_CERT_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_FILE };
  const page = await fetchPage(new URL(`https://model.test:${gateway.port}/doc`), { signal: new AbortController().signal, timeoutMs: 5_000, maxBytes: 10_000, env });
  assert.equal(page.kind, "page", JSON.stringify(page));
  assert.equal(page.kind === "page" && page.body.toString(), "the page behind the gateway");
  assert.deepEqual(proxy.seen, [{ method: "CONNECT", target: `model.test:${gateway.port}` }]);
});
