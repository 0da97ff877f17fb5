// fetchFor(env): requests go through the proxy the environment names, as corporate networks need.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test, type TestContext } from "node:test";
import { startFakeAnthropicTls, startHttpProxy } from "@harness/test-utils";
import { CertificateError } from "./certificate-error.ts";
import { fetchFor } from "./http-fetch.ts";
import { networkProblem } from "./proxy-env.ts";

async function serve(t: TestContext, handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<number> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

async function proxyFor(t: TestContext) {
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  return proxy;
}

test("HTTP_PROXY carries http:// requests, a form, a Request and a redirect, with the credentials in its URL", async (t) => {
  const port = await serve(t, (req, res) => {
    if (req.url === "/moved") {
      res.writeHead(302, { location: "/here" });
      res.end();
      return;
    }
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => res.end(`${req.method} ${req.url} ${body.includes("form-data") ? "a form" : body}`));
  });
  const proxy = await proxyFor(t);
  const proxied = fetchFor({ HTTP_PROXY: proxy.url.replace("//", "//user:p%40ss@") });
  const site = `http://model.test:${port}`;
  assert.equal(await (await proxied(`${site}/v1/messages`, { method: "POST", body: "hi" })).text(), "POST /v1/messages hi");
  const form = new FormData();
  form.set("field", "value");
  assert.equal(await (await proxied(`${site}/form`, { method: "POST", body: form })).text(), "POST /form a form");
  assert.equal(await (await proxied(new Request(`${site}/request`, { method: "PUT", body: "as a Request" }))).text(), "PUT /request as a Request");
  assert.equal(await (await proxied(`${site}/moved`)).text(), "GET /here ");
  assert.deepEqual(
    proxy.seen.map((seen) => `${seen.method} ${seen.target}`),
    ["POST /v1/messages", "POST /form", "PUT /request", "GET /moved", "GET /here"].map((line) => line.replace(" /", ` ${site}/`)),
  );
  const basic = `Basic ${Buffer.from("user:p@ss").toString("base64")}`;
  assert.ok(proxy.seen.every((seen) => seen.authorization === basic), JSON.stringify(proxy.seen));
});

test("HTTPS_PROXY (or https_proxy, which wins) tunnels https:// requests with CONNECT; a certificate this process does not trust is said so", async (t) => {
  const proxy = await proxyFor(t);
  const wrong = await proxyFor(t);
  // The tunnel leads to a TLS server whose CA this process was not started with (NODE_EXTRA_CA_CERTS).
  const fake = await startFakeAnthropicTls();
  t.after(() => fake.close());
  const target = fake.url.replace("https://localhost", "model.test");
  const failed = await fetchFor({ HTTPS_PROXY: wrong.url, https_proxy: proxy.url })(`https://${target}/v1/messages`, { method: "POST", body: "{}" }).catch((error: TypeError) => error);
  assert.deepEqual(proxy.seen, [{ method: "CONNECT", target }]);
  assert.deepEqual(wrong.seen, []);
  assert.ok(failed instanceof TypeError && failed.cause instanceof CertificateError, String(failed));
  assert.match(failed.cause.message, /^the TLS certificate of model\.test is not trusted \(unable to verify the first certificate\): .*NODE_EXTRA_CA_CERTS/);
  assert.equal(fake.requests.length, 0);
});

test("ALL_PROXY (or all_proxy) carries the requests of a scheme whose own variable is unset, as curl reads it", async (t) => {
  const port = await serve(t, (_req, res) => res.end("ok"));
  const all = await proxyFor(t);
  const own = await proxyFor(t);
  const url = `http://model.test:${port}/`;
  assert.equal(await (await fetchFor({ ALL_PROXY: all.url })(url)).text(), "ok");
  assert.equal(await (await fetchFor({ all_proxy: all.url, ALL_PROXY: "socks5://ignored:1080", HTTPS_PROXY: own.url })(url)).text(), "ok");
  assert.equal(await (await fetchFor({ ALL_PROXY: all.url, HTTP_PROXY: own.url })(url)).text(), "ok");
  assert.deepEqual(all.seen.map((seen) => seen.target), [url, url]);
  assert.deepEqual(own.seen.map((seen) => seen.target), [url]);
  assert.match(networkProblem({ ALL_PROXY: "socks5h://u:secret@proxy.corp:1080" }) ?? "", /^ALL_PROXY is not a usable proxy URL \(socks5h:\/\/\*\*\*@proxy\.corp:1080\): only http:\/\/ and https:\/\/ proxies are supported, not socks5h:\/\/$/);
  assert.equal(networkProblem({ ALL_PROXY: "socks5://proxy.corp:1080", HTTPS_PROXY: "http://a.corp", HTTP_PROXY: "http://a.corp" }), undefined, "an ALL_PROXY nothing falls back to is not read");
});

test("NO_PROXY sends the hosts it lists direct, Node's way; loopback is proxied unless listed", async (t) => {
  const port = await serve(t, (_req, res) => res.end("direct"));
  const proxy = await proxyFor(t);
  const url = `http://127.0.0.1:${port}/`;
  assert.equal(await (await fetchFor({ HTTP_PROXY: proxy.url })(url)).text(), "direct");
  assert.equal(proxy.seen.length, 1, "loopback is not skipped on its own");
  for (const noProxy of ["127.0.0.1", `127.0.0.1:${port}`, "*", "example.com, 127.0.0.1"]) {
    assert.equal(await (await fetchFor({ HTTP_PROXY: proxy.url, NO_PROXY: noProxy })(url)).text(), "direct");
    assert.equal(await (await fetchFor({ HTTP_PROXY: proxy.url, no_proxy: noProxy, NO_PROXY: "other.example" })(url)).text(), "direct");
  }
  assert.equal(proxy.seen.length, 1, `NO_PROXY kept the others away: ${JSON.stringify(proxy.seen)}`);
  await fetchFor({ HTTP_PROXY: proxy.url, NO_PROXY: `127.0.0.1:${port + 1}` })(url);
  assert.equal(proxy.seen.length, 2, "another port of the host is proxied");
});

test("a proxy URL that cannot be used is an error naming the variable, without its password", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ HTTPS_PROXY: "proxy.corp:3128" }, /^HTTPS_PROXY is not a usable proxy URL \(proxy\.corp:3128\): it needs its scheme, as in http:\/\/proxy\.example\.com:3128$/],
    [{ http_proxy: "socks5://u:secret@proxy.corp:1080" }, /^http_proxy is not a usable proxy URL \(socks5:\/\/\*\*\*@proxy\.corp:1080\): only http:\/\/ and https:\/\/ proxies are supported, not socks5:\/\/$/],
    [{ HTTP_PROXY: "http://u:secret@[bad" }, /^HTTP_PROXY is not a usable proxy URL \(http:\/\/\*\*\*@\[bad\): give a URL such as/],
  ];
  for (const [env, expected] of cases) {
    const problem = networkProblem(env);
    assert.match(problem ?? "", expected);
    assert.doesNotMatch(problem ?? "", /secret/);
    const failed = await fetchFor(env)("https://api.anthropic.com/v1/messages").catch((error: TypeError) => error);
    assert.ok(failed instanceof TypeError);
    assert.equal((failed.cause as Error).message, problem);
  }
  assert.equal(networkProblem({ HTTPS_PROXY: "https://proxy.corp", NO_PROXY: "*" }), undefined);
  assert.equal(networkProblem({ HTTPS_PROXY: "  " }), undefined, "a blank variable is no proxy");
});
