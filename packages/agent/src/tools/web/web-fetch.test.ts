import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test, type TestContext } from "node:test";
import { tempWorkspace } from "../../testing/fixtures.ts";
import { createToolState, type ToolState } from "../state.ts";
import { callWithState } from "../test-helpers.ts";
import { webFetchTool } from "./web-fetch.ts";

const PAGE = `<!doctype html><html><head><title>Release &amp; notes</title><style>body { color: red }</style>
<script>window.secret = "do not show";</script></head>
<body><h1>Version 2</h1><p>It is <strong>faster</strong>. See <a href="https://example.com/docs">the docs</a>.</p>
<ul><li>one</li><li>two</li></ul><noscript>enable js</noscript></body></html>`;

async function server(t: TestContext) {
  const srv = http.createServer((req, res) => {
    const port = (srv.address() as AddressInfo).port;
    switch (req.url) {
      case "/page":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
        return;
      case "/plain":
        res.writeHead(200, { "content-type": "text/plain" }).end("just text\n  kept as is");
        return;
      case "/data":
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
        return;
      case "/same":
        res.writeHead(302, { location: "/plain" }).end();
        return;
      case "/away":
        res.writeHead(301, { location: `http://localhost:${port}/plain` }).end();
        return;
      case "/declared-big":
        res.writeHead(200, { "content-type": "text/plain", "content-length": "5000" }).end("x".repeat(5000));
        return;
      case "/streamed-big":
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("y".repeat(800));
        res.end("y".repeat(800));
        return;
      case "/image":
        res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
        return;
      case "/long":
        res.writeHead(200, { "content-type": "text/html" }).end(`<p>${"word ".repeat(20_000)}</p><p>END</p>`);
        return;
      case "/slow":
        return; // never answers
      default:
        res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not here</h1>");
    }
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    srv.closeAllConnections();
    return new Promise<void>((resolve) => srv.close(() => resolve()));
  });
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

async function fetcher(t: TestContext, state?: ToolState) {
  const base = await server(t);
  const cwd = await tempWorkspace(t);
  return { base, fetch: (url: string, prompt = "What changed?") => callWithState(webFetchTool, { url, prompt }, cwd, state) };
}

test("WebFetch turns HTML into Markdown without scripts or styles, and returns it with the prompt", async (t) => {
  const { base, fetch } = await fetcher(t);
  const out = await fetch(`${base}/page`);
  assert.equal(out.isError, undefined);
  assert.equal(
    out.content,
    [
      `URL: ${base}/page`,
      "Title: Release & notes",
      "Content-Type: text/html; charset=utf-8 (converted to Markdown)",
      "Prompt: What changed?",
      "",
      "Answer the prompt from the page content below.",
      "",
      "---",
      "",
      "# Version 2",
      "",
      "It is **faster**. See [the docs](https://example.com/docs).",
      "",
      "-   one",
      "-   two",
    ].join("\n"),
  );
});

test("WebFetch passes text and JSON through and follows a redirect on the same host", async (t) => {
  const { base, fetch } = await fetcher(t);
  const plain = await fetch(`${base}/plain`);
  assert.match(plain.content, /^URL: .*\/plain\nContent-Type: text\/plain\n[\s\S]*---\n\njust text\n {2}kept as is$/);
  const json = await fetch(`${base}/data`);
  assert.match(json.content, /\n---\n\n\{"ok":true\}$/);
  const redirected = await fetch(`${base}/same`);
  assert.equal(redirected.isError, undefined);
  assert.match(redirected.content, new RegExp(`^URL: ${base}/plain\\n`));
  assert.match(redirected.content, /just text/);
});

test("WebFetch reports a redirect to another host instead of following it", async (t) => {
  const { base, fetch } = await fetcher(t);
  const port = new URL(base).port;
  const out = await fetch(`${base}/away`, "Summarize");
  assert.equal(out.isError, undefined);
  assert.equal(
    out.content,
    [
      "REDIRECT DETECTED: the URL redirects to a different host, which WebFetch does not follow on its own.",
      "",
      `Original URL: ${base}/away`,
      `Redirect URL: http://localhost:${port}/plain`,
      "Status: 301 Moved Permanently",
      "",
      "To get the content, call WebFetch again with:",
      `- url: "http://localhost:${port}/plain"`,
      '- prompt: "Summarize"',
    ].join("\n"),
  );
});

test("WebFetch refuses responses over the size limit, whether declared or streamed", async (t) => {
  const { base, fetch } = await fetcher(t, createToolState({ limits: { maxFetchBytes: 1000 } }));
  const declared = await fetch(`${base}/declared-big`);
  assert.equal(declared.isError, true);
  assert.match(declared.content, /^The response from .*\/declared-big is too large \(4\.9 KB\): WebFetch reads at most 1000 bytes\./);
  const streamed = await fetch(`${base}/streamed-big`);
  assert.equal(streamed.isError, true);
  assert.match(streamed.content, /\/streamed-big is too large: WebFetch reads at most/);
});

test("WebFetch cuts long pages with a note", async (t) => {
  const { base, fetch } = await fetcher(t);
  const out = await fetch(`${base}/long`);
  assert.equal(out.isError, undefined);
  assert.ok(out.content.length <= 30_000, `content is ${out.content.length} characters`);
  assert.match(out.content, /\n\n\[Content truncated: showing the first 28,000 of [\d,]+ characters\.\]$/);
  assert.doesNotMatch(out.content, /END/);
});

test("WebFetch refuses other schemes, bad URLs, binary content, HTTP errors and slow servers", async (t) => {
  const { base, fetch } = await fetcher(t, createToolState({ limits: { fetchTimeoutMs: 300 } }));
  const file = await fetch("file:///etc/passwd");
  assert.deepEqual(file, { content: "WebFetch only fetches http:// and https:// URLs, not file:. Use Read for local files.", isError: true });
  const ftp = await fetch("ftp://example.com/x");
  assert.equal(ftp.isError, true);
  assert.match(ftp.content, /not ftp:/);
  const bad = await fetch("not a url");
  assert.match(bad.content, /^Invalid URL: "not a url"/);
  const image = await fetch(`${base}/image`);
  assert.equal(image.isError, true);
  assert.match(image.content, /returned content of type image\/png, which WebFetch cannot read/);
  const missing = await fetch(`${base}/missing`);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /^HTTP 404 Not Found from .*\/missing\.\n\n# Not here$/);
  const slow = await fetch(`${base}/slow`);
  assert.equal(slow.isError, true);
  assert.match(slow.content, /\/slow timed out after 0 s/);
});
