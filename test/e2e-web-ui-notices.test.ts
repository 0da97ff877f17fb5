// The web UI's notices, in headless Chromium against a real `harness serve` with the fake model: a
// model request tried again says so while the run waits, and a new prompt clears what was said.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { webUiTesting } from "./web-ui-support.ts";

describe("the web UI's notices", () => {
  const { harness, openUi, until, send, newSession, replied } = webUiTesting();

  test("a model request that failed and is tried again shows as a warning during the run; the next prompt clears it", async () => {
    const { server } = await harness(
      { replies: [{ kind: "http-error", status: 500, message: "internal boom" }, { text: "got there" }, { text: "second" }] },
      { HARNESS_RETRY_BASE_MS: "1500" },
    );
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await send(page, "hello");
    const shown = `[...document.querySelectorAll("#notices li")].map((li) => li.dataset.level + " " + li.textContent)`;
    // While the run waits for its next attempt, the page says why nothing comes.
    await until(page, `!document.getElementById("notices").hidden && document.getElementById("status").dataset.status === "running"`, "the retry notice during the run");
    const during = await page.evaluate<string[]>(shown);
    assert.equal(during.length, 1);
    assert.match(during[0], /^warning The model request failed .*trying again in .*attempt 2/);
    await replied(page);
    assert.deepEqual(await page.evaluate(shown), during, "still there once the run is over");
    await send(page, "again");
    await replied(page, 2);
    assert.equal(await page.evaluate(`document.getElementById("notices").hidden`), true);
    assert.deepEqual(await page.evaluate(shown), []);
    // Opened anew, the page does not show again what was said before.
    await page.send("Page.reload", {});
    await until(page, `document.querySelectorAll('#conversation .message[data-role="assistant"]').length === 2`, "the conversation after a reload");
    assert.equal(await page.evaluate(`document.getElementById("notices").hidden`), true);
    assert.deepEqual(await page.evaluate(`window.violations`), []);
  });
});
