// The web UI's Rewind here beyond the happy path, in headless Chromium against a real `harness
// serve` with the fake model: a steer offers no rewind, and a rewind puts the prompt back in the
// prompt box rather than sending it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { USER, webUiTesting } from "./web-ui-support.ts";

describe("the web UI's Rewind here", () => {
  const { harness, openUi, until, send, newSession, mode, replied } = webUiTesting();

  test("steers offer no rewind; a rewind puts its prompt back in the prompt box, not sent", async () => {
    const { server, dataDir, fake } = await harness({
      replies: [
        { text: "hello" },
        { toolUses: [{ name: "Bash", input: { command: "while [ ! -e go ]; do sleep 0.1; done" } }] },
        { text: "steered" },
        { toolUses: [{ name: "Write", input: { file_path: "a.txt", content: "one\n" } }] },
        { text: "wrote" },
      ],
    });
    const page = await openUi(`${server.url}/`);
    const sessionId = await newSession(page);
    await mode(page, "fullAuto");
    const workspace = join(dataDir, "workspaces", USER, sessionId);
    const prompt = (n: number) => `document.querySelectorAll('.message[data-role="user"]')[${n}]`;

    await send(page, "first");
    await replied(page, 1);

    // A steer joins the run under way: it has no Rewind here.
    await send(page, "second");
    await until(page, `document.querySelector('.tool-call[data-name="Bash"][data-status="running"]')`, "the run's command running");
    await send(page, "also this");
    await until(page, `document.querySelector('#steers li[data-status="queued"]') !== null`, "the run to hold the steer");
    await writeFile(join(workspace, "go"), "");
    await until(page, `${prompt(2)}?.textContent.includes("also this")`, "the steer in the conversation");
    await replied(page, 3);
    assert.deepEqual(await page.evaluate(`[0, 1, 2].map((n) => Boolean(${prompt(0).replace("[0]", "[n]")}.querySelector("button.rewind")))`), [true, true, false]);

    // A rewind: the conversation goes back, and the prompt is in the prompt box, not sent.
    await send(page, "third, with\ntwo lines");
    await replied(page, 4);
    await page.evaluate(`${prompt(3)}.querySelector("button.rewind").click()`);
    await until(page, `!${prompt(3)}.querySelector(".rewind-confirm").hidden`, "the preview");
    await page.evaluate(`document.getElementById("prompt").value = ""`);
    await page.evaluate(`${prompt(3)}.querySelector(".rewind-confirm").click()`);
    await until(page, `document.querySelectorAll('.message[data-role="user"]').length === 3`, "the conversation rewound");
    await until(page, `document.getElementById("prompt").value === "third, with\\ntwo lines"`, "the prompt back in the box");
    assert.equal(await page.evaluate(`document.activeElement.id`), "prompt");
    assert.equal(await page.evaluate(`document.getElementById("status").dataset.status`), "idle");
    assert.equal(fake.requests.length, 5);
    assert.deepEqual(page.console(), []);
  });
});
