// The web UI on a long conversation (300 messages, a reply with many tool calls), in headless
// Chromium against a real `harness serve` with the fake model: a streamed reply changes the page
// only where it changed, its own text, not the prompts before it, its finished tool calls or the
// prompt box's buttons; the finished messages off screen are not rendered (only the reply is laid
// out again at each delta), and the page stays at the conversation's end, opened and streaming.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MinimalClient } from "@harness/test-utils";
import { USER, webUiTesting } from "./web-ui-support.ts";

const PROMPTS = 150;
const CALLS = 30;

describe("the web UI on a long conversation", () => {
  const { harness, openUi, until, replied, send } = webUiTesting();

  test("a reply streaming after 300 messages and 30 tool calls touches its own text only", async () => {
    const replies = Array.from({ length: PROMPTS }, (_, i) => ({ text: `reply ${i}` }));
    const { server, fake } = await harness({ replies });
    const client = await MinimalClient.connect(server.url, { userId: USER, sessionId: "long" });
    try {
      for (let i = 0; i < PROMPTS; i++) {
        client.send({ type: "submit", prompt: `prompt ${i}` });
        await client.waitForState((s) => s.messages.length === 2 * (i + 1) && s.status === "idle", 15_000, `reply ${i}`);
      }
    } finally {
      await client.close();
    }
    const page = await openUi(`${server.url}/#session=long`);
    await until(page, `document.querySelectorAll("#conversation .message").length === ${2 * PROMPTS}`, "the conversation to show");
    // Opened at its end: the last reply in view; the first prompt, far above, skipped.
    const atEnd = `(() => {
      const box = document.getElementById("conversation").getBoundingClientRect();
      const last = [...document.querySelectorAll("#conversation .message")].pop().getBoundingClientRect();
      return last.bottom <= box.bottom + 1 && last.bottom > box.top;
    })()`;
    await until(page, atEnd, "the conversation's end in view");
    const skipped = (n: number) => `!document.querySelectorAll("#conversation .message")[${n}].querySelector(".text").checkVisibility({ contentVisibilityAuto: true })`;
    assert.equal(await page.evaluate(skipped(0)), true, "the first prompt, off screen, is not rendered");
    assert.equal(await page.evaluate(skipped(2 * PROMPTS - 1)), false, "the last reply, in view, is");
    const calls = Array.from({ length: CALLS }, (_, i) => ({ name: "Read", input: { file_path: `missing-${i}.txt` } }));
    const chunks = Array.from({ length: 60 }, (_, i) => `word${i} `);
    fake.push({ toolUses: calls }, { text: chunks, delayMs: 15 });
    await send(page, "read them all");
    // Once every call has answered, the reply's text streams: record what changes in the page.
    await until(page, `document.querySelectorAll('.tool-call[data-status="error"], .tool-call[data-status="complete"]').length === ${CALLS}`, "the calls to end");
    await page.evaluate(`(() => {
      window.touched = { outside: 0, calls: 0, samples: [] };
      const box = document.getElementById("conversation");
      new MutationObserver((records) => {
        const last = [...box.querySelectorAll('.message[data-role="assistant"]')].pop();
        for (const r of records) {
          const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
          if (!last.contains(node)) window.touched.outside++;
          else if (node.closest(".tool-call")) window.touched.calls++;
          else continue;
          if (window.touched.samples.length < 5) window.touched.samples.push(r.type + " " + (r.attributeName ?? "") + " " + node.className);
        }
      }).observe(box, { subtree: true, childList: true, attributes: true, characterData: true });
      window.composer = [];
      new MutationObserver((records) => {
        // While the reply streams (its end turns Steer back into Send).
        const last = [...box.querySelectorAll('.message[data-role="assistant"]')].pop();
        if (last.dataset.status !== "running") return;
        for (const r of records) if (window.composer.length < 5) window.composer.push(r.type + " " + (r.target.id || r.target.parentElement?.id));
      }).observe(document.getElementById("composer"), { subtree: true, childList: true, attributes: true, characterData: true });
    })()`);
    await replied(page, PROMPTS + 1);
    await until(page, atEnd, "the conversation's end still in view");
    assert.equal(await page.evaluate(skipped(0)), true);
    const touched = await page.evaluate<{ outside: number; calls: number; samples: string[] }>(`window.touched`);
    assert.equal(touched.outside, 0, `the messages before the reply are left alone: ${touched.samples.join("; ")}`);
    // Nor the prompt box and its buttons: the reply changes none of them.
    assert.deepEqual(await page.evaluate(`window.composer`), []);
    assert.equal(touched.calls, 0, `the reply's finished calls are left alone: ${touched.samples.join("; ")}`);
  });
});
