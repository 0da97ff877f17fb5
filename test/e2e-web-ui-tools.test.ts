// What the web UI shows of tools beyond their output, in headless Chromium against a real `harness
// serve` with the fake model: the lines an edit removes and adds (while it waits for approval too).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { webUiTesting } from "./web-ui-support.ts";

describe("the web UI's tool views", () => {
  const { harness, openUi, until, click, send, newSession, mode, replied } = webUiTesting();

  /** The rows of the diff of the `index`th call: each as its kind and text, open ones only. */
  const diffOf = (index: number) => `[...document.querySelectorAll(".tool-call")[${index}].querySelectorAll(".edit-diff > pre > .diff-row")].map((r) => r.dataset.kind + " " + r.textContent)`;

  test("Write, Edit and MultiEdit calls show the lines they remove and add, long ones folded, text as text", async () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
    const { server } = await harness({
      replies: [
        { toolUses: [{ name: "Write", input: { file_path: "page.html", content: "<b>bold</b>\n<img src=x onerror=alert(1)>\n" } }] },
        {
          toolUses: [
            { name: "Edit", input: { file_path: "page.html", old_string: "<b>bold</b>", new_string: "<i>italic</i>" } },
            { name: "MultiEdit", input: { file_path: "long.txt", edits: [{ old_string: "a", new_string: long }, { old_string: "keep\ngone", new_string: "keep" }] } },
          ],
        },
        { text: "done" },
      ],
    });
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await send(page, "write it");
    // Waiting for approval, the Write shows what it would write: every line added.
    await until(page, `document.querySelector('.tool-call[data-status="awaiting-approval"] .edit-diff:not([hidden])')`, "the diff of the call awaiting approval");
    assert.deepEqual(await page.evaluate(diffOf(0)), ["added + <b>bold</b>", "added + <img src=x onerror=alert(1)>"]);
    assert.equal(await page.evaluate(`document.querySelectorAll(".edit-diff b, .edit-diff img").length`), 0);
    const colours = await page.evaluate<{ added: string; font: string }>(`(() => { const row = document.querySelector(".diff-row"); const s = getComputedStyle(row); return { added: s.color, font: s.fontFamily }; })()`);
    assert.match(colours.font, /monospace/);
    // Edits asked about from here on are accepted (the run takes the mode from its next call).
    await mode(page, "acceptEdits");
    await click(page, ".tool-call .approve");
    await replied(page);
    assert.deepEqual(await page.evaluate(diffOf(1)), ["removed - <b>bold</b>", "added + <i>italic</i>"]);
    const removedColour = await page.evaluate<string>(`getComputedStyle(document.querySelectorAll(".tool-call")[1].querySelector('.diff-row[data-kind="removed"]')).color`);
    assert.notEqual(removedColour, colours.added, "removed and added lines differ in colour");
    // The long MultiEdit: the first 20 rows open, the rest folded, the second edit after a gap.
    const multi = `document.querySelectorAll(".tool-call")[2]`;
    const open = await page.evaluate<string[]>(diffOf(2));
    assert.equal(open.length, 20);
    assert.deepEqual(open.slice(0, 3), ["removed - a", "added + line 1", "added + line 2"]);
    assert.equal(await page.evaluate(`${multi}.querySelector(".edit-diff details").open`), false);
    assert.equal(await page.evaluate(`${multi}.querySelector(".edit-diff summary").textContent`), "14 more lines");
    const folded = await page.evaluate<string[]>(`[...${multi}.querySelectorAll(".edit-diff details .diff-row")].map((r) => r.dataset.kind + " " + r.textContent)`);
    assert.deepEqual(folded.slice(-4), ["added + line 30", "gap …", "same   keep", "removed - gone"]);
    assert.deepEqual(await page.evaluate(`window.violations`), []);
    assert.deepEqual(page.console(), []);
  });
});
