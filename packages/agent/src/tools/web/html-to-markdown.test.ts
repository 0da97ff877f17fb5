import assert from "node:assert/strict";
import { test } from "node:test";
import TurndownService from "turndown";
import { htmlDepth, htmlToMarkdown, MAX_HTML_DEPTH } from "./html-to-markdown.ts";

test("a page is converted to Markdown: headings, links and lists kept, scripts dropped", async () => {
  const md = await htmlToMarkdown('<html><head><title>T</title><script>x()</script></head><body><h1>Title</h1><p>See <a href="https://e.x/">this</a>.</p><ul><li>one</li></ul></body></html>');
  assert.equal(md, "# Title\n\nSee [this](https://e.x/).\n\n-   one");
});

test("depth counts nesting, not void or self-closed elements", () => {
  assert.equal(htmlDepth("<div><p>a<br>b<img src=x></p><p/></div>"), 2);
  assert.equal(htmlDepth("</div></div><span>x</span>"), 1);
});

test("a page nested deeper than browsers nest comes back as its text, without Turndown's walk", async (t) => {
  // Turndown's walk overflows the stack on such a page, or takes time growing with the square of its depth.
  const walks = t.mock.method(TurndownService.prototype, "turndown");
  await htmlToMarkdown("<div><p>shallow</p></div>");
  assert.equal(walks.mock.callCount(), 1, "a page of usual depth goes through Turndown");
  for (const levels of [1_500, 20_000]) {
    const html = `<html><body><script>bad()</script>${"<div>".repeat(levels)}deep &amp; text<br>next line${"</div>".repeat(levels)}</body></html>`;
    assert.ok(htmlDepth(html) > MAX_HTML_DEPTH);
    assert.equal(await htmlToMarkdown(html), "deep & text\nnext line");
  }
  assert.equal(walks.mock.callCount(), 1, "Turndown walked a page nested too deep");
});
