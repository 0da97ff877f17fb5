// The web UI in a narrow window (a phone's width), in headless Chromium against a real `harness
// serve` with the fake model: the conversation gets the window's width, nothing runs off its side,
// and what a mouse finds by hovering shows on a touch screen.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { webUiTesting } from "./web-ui-support.ts";

describe("the web UI in a narrow window", () => {
  const { harness, openUi, send, newSession, replied } = webUiTesting();

  test("at 400 pixels the sessions sit above the conversation, which takes the full width", async () => {
    const { server } = await harness({ replies: [{ text: "a reply long enough to wrap over several lines of a narrow window, as replies do" }] });
    const page = await openUi(`${server.url}/`);
    await page.send("Emulation.setDeviceMetricsOverride", { width: 400, height: 800, deviceScaleFactor: 1, mobile: true });
    await newSession(page);
    await send(page, "hello");
    await replied(page);
    const box = (selector: string) => page.evaluate<{ left: number; right: number; top: number; bottom: number; width: number }>(`document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().toJSON()`);
    const conversation = await box("#conversation");
    assert.ok(conversation.width >= 380, `the conversation is ${conversation.width} pixels wide`);
    const sessions = await box("aside");
    assert.ok(sessions.bottom <= conversation.top, "the sessions are above the conversation");
    assert.ok(sessions.bottom <= 800 * 0.3 + 1, `the sessions take at most a third of the height (${sessions.bottom})`);
    for (const selector of ["#new-session", "#mode", "#prompt", "#send", "#cancel"]) {
      const { left, right } = await box(selector);
      assert.ok(left >= 0 && right <= 400, `${selector} is inside the window (${left}–${right})`);
    }
    assert.equal(await page.evaluate(`document.documentElement.scrollWidth`), 400, "nothing runs off the window's side");
  });

  test("on a touch screen, which has no hover, a session's Rename and Delete are shown without one", async () => {
    const { server } = await harness({ replies: [] });
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    const opacity = `getComputedStyle(document.querySelector("#sessions li > .session-tools")).opacity`;
    // Not focused either (focus shows them too).
    await page.evaluate(`document.activeElement.blur()`);
    await page.send("Emulation.setEmulatedMedia", { features: [{ name: "hover", value: "none" }] });
    assert.equal(await page.evaluate(opacity), "1");
  });
});
