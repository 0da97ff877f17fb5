import { test } from "node:test";
import assert from "node:assert/strict";
import { parseMarkdown, type MdNode } from "./markdown.ts";
import { parseInline } from "./markdown-inline.ts";

const nodes = (text: string) => parseMarkdown(text).map((b) => b.node);

/** Every element's tag in the tree, depth first. */
function tags(tree: MdNode[]): string[] {
  return tree.flatMap((n) => (typeof n === "string" ? [] : [n.tag, ...tags(n.children)]));
}
function textOf(tree: MdNode[]): string {
  return tree.map((n) => (typeof n === "string" ? n : textOf(n.children))).join("");
}
function links(tree: MdNode[]): string[] {
  return tree.flatMap((n) => (typeof n === "string" ? [] : [...(n.href ? [n.href] : []), ...links(n.children)]));
}

test("paragraphs, headings, emphasis, inline code and a thematic break", () => {
  assert.deepEqual(nodes("# Title\n\nSome *it* and **bold**, ~~gone~~ and `a*b*c`.\nNext line.\n\n---"), [
    { tag: "h1", children: ["Title"] },
    { tag: "p", children: ["Some ", { tag: "em", children: ["it"] }, " and ", { tag: "strong", children: ["bold"] }, ", ", { tag: "del", children: ["gone"] }, " and ", { tag: "code", children: ["a*b*c"] }, ".\nNext line."] },
    { tag: "hr", children: [] },
  ]);
  assert.deepEqual(parseInline("snake_case_name and 2 * 3 * 4"), ["snake_case_name and 2 * 3 * 4"]);
  assert.deepEqual(parseInline("***both***"), [{ tag: "em", children: [{ tag: "strong", children: ["both"] }] }]);
  assert.deepEqual(parseInline("\\*not\\* `` a ` b ``"), ["*not* ", { tag: "code", children: ["a ` b"] }]);
  assert.deepEqual(parseInline("### not a heading inline"), ["### not a heading inline"]);
});

test("fenced code blocks keep their text as is, with the fence's language; one still open holds the rest", () => {
  assert.deepEqual(nodes("```ts\nconst a = *b*;\n\n<b>x</b>\n```\nafter"), [
    { tag: "pre", lang: "ts", children: ["const a = *b*;\n\n<b>x</b>"] },
    { tag: "p", children: ["after"] },
  ]);
  assert.deepEqual(nodes("Here:\n```\nline 1\nline 2"), [
    { tag: "p", children: ["Here:"] },
    { tag: "pre", children: ["line 1\nline 2"] },
  ]);
  assert.deepEqual(nodes("~~~\n```\n~~~"), [{ tag: "pre", children: ["```"] }]);
});

test("lists, ordered and not, with a nested one; block quotes", () => {
  assert.deepEqual(nodes("- one\n- two\n  - inner *a*\n  - inner b\n- three\n\n3. c\n4. d"), [
    {
      tag: "ul",
      children: [
        { tag: "li", children: ["one"] },
        { tag: "li", children: ["two", { tag: "ul", children: [{ tag: "li", children: ["inner ", { tag: "em", children: ["a"] }] }, { tag: "li", children: ["inner b"] }] }] },
        { tag: "li", children: ["three"] },
      ],
    },
    { tag: "ol", start: 3, children: [{ tag: "li", children: ["c"] }, { tag: "li", children: ["d"] }] },
  ]);
  assert.deepEqual(nodes("> quoted **x**\n> more\n\nout"), [
    { tag: "blockquote", children: [{ tag: "p", children: ["quoted ", { tag: "strong", children: ["x"] }, "\nmore"] }] },
    { tag: "p", children: ["out"] },
  ]);
  // Items three levels down are the second level's text.
  assert.deepEqual(tags(nodes("- a\n  - b\n    - c")), ["ul", "li", "ul", "li"]);
  assert.equal(textOf(nodes("- a\n  - b\n    - c")), "ab\n- c");
});

test("links only to http(s) addresses, the rest as the text typed", () => {
  assert.deepEqual(parseInline("see [the docs](https://example.com/a_b?x=1) or <http://x.org>"), [
    "see ",
    { tag: "a", href: "https://example.com/a_b?x=1", children: ["the docs"] },
    " or ",
    { tag: "a", href: "http://x.org", children: ["http://x.org"] },
  ]);
  for (const hostile of ["[x](javascript:alert(1))", "[x](JAVASCRIPT:alert(1))", "[x](data:text/html,<script>alert(1)</script>)", "[x](vbscript:msgbox)", "[x](//evil.com)", "<javascript:alert(1)>", "[x]( java\tscript:alert(1))"]) {
    const tree = nodes(hostile);
    assert.deepEqual(links(tree), [], hostile);
    assert.equal(textOf(tree), hostile.replace(/\\(.)/g, "$1"), hostile);
  }
  assert.deepEqual(links(nodes("[a [b](https://in.side) c](https://out.side)")), ["https://in.side"], "no link inside a link");
});

test("an http(s) address a browser cannot follow (control characters, a blank host) stays text, not a link that goes nowhere", () => {
  for (const broken of ["<https://x\u0000y>", "[a](https://x\u0007)", "<https://%0a>", "[a](https://x\u200bjavascript:alert(1))", "<http://[::1>"]) {
    const tree = nodes(broken);
    assert.deepEqual(links(tree), [], JSON.stringify(broken));
    assert.equal(textOf(tree), broken, JSON.stringify(broken));
  }
  assert.deepEqual(links(nodes("[a](https://user:pass@example.com/p) <HTTPS://EXAMPLE.COM>")), ["https://user:pass@example.com/p", "HTTPS://EXAMPLE.COM"], "credentials and capitals are still http(s)");
});

test("HTML and entities stay text, as typed", () => {
  const html = `<script>alert(1)</script> <img src=x onerror=alert(1)> &lt;b&gt; &amp; &#x3C;`;
  assert.deepEqual(nodes(html), [{ tag: "p", children: [html] }]);
  assert.deepEqual(nodes("<div>\n*x*\n</div>"), [{ tag: "p", children: ["<div>\n", { tag: "em", children: ["x"] }, "\n</div>"] }]);
});

test("deeply nested markers make a shallow tree, in time linear in the text (quadratic work on these would take seconds)", () => {
  for (const text of ["*".repeat(50_000), "*a ".repeat(20_000) + "b*".repeat(20_000), "[".repeat(50_000) + "](https://x.y)" + "]".repeat(50_000), "`".repeat(3) + "x" + "`".repeat(5) + " `a".repeat(20_000), ">".repeat(50_000) + " deep", "- ".repeat(10_000) + "x", "_a ~~b **c ".repeat(10_000)]) {
    const startedAt = performance.now();
    const tree = nodes(text);
    const ms = performance.now() - startedAt;
    // A bound far above a linear parse on a loaded machine, far below a quadratic one.
    assert.ok(ms < 2000, `${text.slice(0, 20)}…: ${ms} ms`);
    assert.ok(depth(tree) <= 12, `${text.slice(0, 20)}…: depth ${depth(tree)}`);
  }
  assert.equal(textOf(nodes(">".repeat(10) + " deep")), ">".repeat(6) + " deep");
});

function depth(tree: MdNode[]): number {
  return Math.max(0, ...tree.map((n) => (typeof n === "string" ? 0 : 1 + depth(n.children))));
}

test("a 100 KB reply parses whole: every part of it a block of its own", () => {
  const chunk = "## Part\n\nSome *text* with `code` and a [link](https://example.com).\n\n- item **one**\n- item two\n  - nested\n\n```js\nconst x = 1;\n```\n\n> quote\n\n";
  const parts = Math.ceil(100_000 / chunk.length);
  const blocks = parseMarkdown(chunk.repeat(parts));
  // A heading, a paragraph, a list, a code block and a quote a part.
  assert.equal(blocks.length, parts * 5);
});
