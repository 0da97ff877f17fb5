// Steering from the web UI, in headless Chromium against a real `harness serve` with the fake
// model: a steer sent shows, in every tab of the session, on its way and then queued until the model
// reads it, and one the run ended without is not left hanging there.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { USER, webUiTesting } from "./web-ui-support.ts";

describe("steering from the web UI", () => {
  const { harness, openUi, until, send, key, newSession, mode, replied } = webUiTesting();
  const waiting = `[...document.querySelectorAll("#steers li")].map((li) => li.textContent)`;

  test("a steer shows, in every tab, on its way and then queued until the conversation shows it delivered", async () => {
    const { server, dataDir } = await harness({
      replies: [{ toolUses: [{ name: "Bash", input: { command: "while [ ! -e go ]; do sleep 0.1; done" } }] }, { text: "steered" }],
    });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    await mode(page, "fullAuto");
    await send(page, "start");
    await until(page, `document.querySelector('.tool-call[data-name="Bash"][data-status="running"]')`, "the run's command running");
    await send(page, "  also this  ");
    await until(page, `!document.getElementById("steers").hidden`, "the steer shown on its way");
    assert.equal(await page.evaluate(`document.getElementById("prompt").value`), "");
    // Queued once the run holds it: the command may end now, and the model reads it next.
    await until(page, `document.querySelector('#steers li[data-status="queued"]') !== null`, "the steer queued");
    assert.deepEqual(await page.evaluate(waiting), ["steer queued for the model's next step:   also this  "]);
    // A second tab of the session shows it too.
    const other = await openUi(`${server.url}/#session=${sessionId}`);
    await until(other, `document.querySelector('#steers li[data-status="queued"]') !== null`, "the steer queued in the other tab");
    await writeFile(join(dataDir, "workspaces", USER, sessionId, "go"), "");
    await until(page, `[...document.querySelectorAll('.message[data-role="user"]')].some((m) => m.textContent.includes("also this"))`, "the steer in the conversation");
    await until(page, `document.getElementById("steers").hidden`, "the steer gone once delivered");
    await replied(page);
    assert.deepEqual(await page.evaluate(waiting), []);
    await until(other, `document.getElementById("steers").hidden`, "the steer gone from the other tab");
  });

  test("a steer the run was cancelled without goes from the page, which says it was not delivered", async () => {
    let release!: () => void;
    const { server } = await harness({ replies: [{ text: "thinking it over", hold: new Promise<void>((resolve) => (release = resolve)) }] });
    const page = await openUi(`${server.url}/`);
    await newSession(page);
    await send(page, "start");
    await until(page, `document.querySelector('.message[data-role="assistant"]')?.textContent.includes("thinking it over")`, "the reply streaming");
    await send(page, "never read");
    await until(page, `!document.getElementById("steers").hidden`, "the steer shown on its way");
    await key(page, "Escape", 27);
    await until(page, `document.getElementById("steers").hidden`, "the steer gone with the run");
    await until(page, `/not delivered/.test(document.getElementById("problem").textContent)`, "why it was not delivered");
    release();
  });
});
