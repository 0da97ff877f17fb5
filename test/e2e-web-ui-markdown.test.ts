// The web UI renders the model's replies as Markdown, in headless Chromium against a real
// `harness serve` with the fake model: the elements made, a fence still open while the reply
// streams, the Copy button, and links only to http(s) addresses.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { webUiTesting } from "./web-ui-support.ts";

describe("the web UI's Markdown", () => {
  const { harness, openUi, until, click, send, newSession, replied, cleanups } = webUiTesting();

  test("a reply shows as Markdown: a fence still open while it streams is a code block so far, and Copy copies the code", async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(async () => release());
    const reply = [
      "## Plan\n\nDo **this** and *that*, with `npm test`.\n\n- one\n- two\n  - nested\n\n> quoted\n\n",
      "See [the docs](https://example.com/docs) and [bad](javascript:alert(1)).\n\n```sh\necho first-line-that-is-quite-long-" + "x".repeat(300),
      "\necho second\n",
    ];
    const { server } = await harness({ replies: [{ text: reply, hold }] });
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await send(page, "plan it");
    const block = `document.querySelector('.message[data-role="assistant"] .code-block')`;
    await until(page, `${block}?.querySelector("code").textContent === "echo first-line-that-is-quite-long-${"x".repeat(300)}\\necho second"`, "the open fence as a code block");
    release();
    await replied(page);

    const seen = await page.evaluate<Record<string, unknown>>(`(() => {
      const m = document.querySelector('.message[data-role="assistant"] .markdown');
      const pre = m.querySelector(".code-block pre");
      const style = getComputedStyle(pre);
      return {
        tags: [...m.children].map((e) => e.tagName.toLowerCase() + (e.className ? "." + e.className : "")),
        heading: m.querySelector("h2").textContent,
        strong: m.querySelector("strong").textContent,
        em: m.querySelector("em").textContent,
        code: m.querySelector("p code").textContent,
        nested: m.querySelector("ul > li > ul > li").textContent,
        quote: m.querySelector("blockquote").textContent,
        links: [...m.querySelectorAll("a")].map((a) => [a.textContent, a.getAttribute("href"), a.rel, a.target]),
        lang: m.querySelector(".code-lang").textContent,
        scrolls: style.overflowX === "auto" && style.whiteSpace === "pre" && pre.scrollWidth > pre.clientWidth,
        copyInText: m.querySelector(".code-block").textContent.includes("Copy"),
      };
    })()`);
    assert.deepEqual(seen, {
      tags: ["h2", "p", "ul", "blockquote", "p", "div.code-block"],
      heading: "Plan",
      strong: "this",
      em: "that",
      code: "npm test",
      nested: "nested",
      quote: "quoted",
      links: [["the docs", "https://example.com/docs", "noopener noreferrer", "_blank"]],
      lang: "sh",
      scrolls: true,
      copyInText: false,
    });
    assert.match(await page.evaluate<string>(`document.querySelectorAll('.message[data-role="assistant"] .markdown > p')[1].textContent`), /\[bad\]\(javascript:alert\(1\)\)/);

    await page.send("Browser.grantPermissions", { permissions: ["clipboardReadWrite", "clipboardSanitizedWrite"], origin: server.url }).catch(() => undefined);
    await click(page, ".code-block button.copy");
    await until(page, `document.querySelector(".code-block button.copy").dataset.copied === "yes"`, "Copy to say copied");
    assert.equal(await page.evaluate(`getComputedStyle(document.querySelector(".code-block button.copy"), "::after").content`), '"Copied"');
    assert.deepEqual(page.console(), []);
    assert.deepEqual(await page.evaluate("window.violations"), []);
  });

  test("Markdown of a hostile reply makes no script, handler or other link", async () => {
    const evil = "[x](javascript:alert(1)) [y](data:text/html,hi) <javascript:alert(2)> <script>window.pwned=1</script> &lt;b&gt; **<img src=x onerror=window.pwned=2>**\n\n```\n<script>window.pwned=3</script>";
    const { server } = await harness({ replies: [{ text: evil }] });
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await send(page, "hi");
    await replied(page);
    const seen = await page.evaluate<Record<string, unknown>>(`({
      pwned: window.pwned ?? null,
      elements: document.querySelectorAll("#conversation a, #conversation img, #conversation script").length,
      text: document.querySelector('.message[data-role="assistant"] .markdown p').textContent,
      strong: document.querySelector('.message[data-role="assistant"] strong').textContent,
      code: document.querySelector('.message[data-role="assistant"] pre').textContent,
    })`);
    assert.deepEqual(seen, {
      pwned: null,
      elements: 0,
      text: "[x](javascript:alert(1)) [y](data:text/html,hi) <javascript:alert(2)> <script>window.pwned=1</script> &lt;b&gt; <img src=x onerror=window.pwned=2>",
      strong: "<img src=x onerror=window.pwned=2>",
      code: "<script>window.pwned=3</script>",
    });
  });
});
