import assert from "node:assert/strict";
import { test } from "node:test";
import { htmlDepth, htmlToMarkdown, MAX_HTML_DEPTH } from "./html-to-markdown.ts";

test("a page is converted to Markdown: headings, links and lists kept, scripts dropped", async () => {
  const md = await htmlToMarkdown('<html><head><title>T</title><script>x()</script></head><body><h1>Title</h1><p>See <a href="https://e.x/">this</a>.</p><ul><li>one</li></ul></body></html>');
  assert.equal(md, "# Title\n\nSee [this](https://e.x/).\n\n-   one");
});

test("depth counts nesting, not void or self-closed elements", () => {
  assert.equal(htmlDepth("<div><p>a<br>b<img src=x></p><p/></div>"), 2);
  assert.equal(htmlDepth("</div></div><span>x</span>"), 1);
});

test("a page nested deeper than browsers nest comes back as its text, at once", async () => {
  for (const levels of [1_500, 20_000]) {
    const html = `<html><body><script>bad()</script>${"<div>".repeat(levels)}deep &amp; text<br>next line${"</div>".repeat(levels)}</body></html>`;
    assert.ok(htmlDepth(html) > MAX_HTML_DEPTH);
    const started = performance.now();
    const text = await htmlToMarkdown(html);
    assert.ok(performance.now() - started < 2_000, `${levels} levels took ${Math.round(performance.now() - started)} ms`);
    assert.equal(text, "deep & text\nnext line");
  }
});
